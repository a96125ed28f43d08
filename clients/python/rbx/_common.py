"""What the sync and the asyncio clients share: errors, request bodies,
the reading of answers. Standard library only."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any, Dict, List, Mapping, Optional, Tuple, Type, Union

JSON = Any
"""A decoded JSON value (dict, list, str, int, float, bool or None)."""

ToolCall = Dict[str, Any]
"""{"name": str, "arguments": dict | str}, or OpenAI's {"id", "type", "function": {...}}."""

Checkpoint = Union[str, int]
""""auto" (the curriculum picks k) or an explicit checkpoint k."""

RESET_OPTIONS = frozenset({"task", "checkpoint", "feed_curriculum", "group_key"})


class RbxError(Exception):
    """An error answer from the server: code, HTTP status, details (the
    other fields of the server's {"error": {...}} body, e.g. "retry_after")."""

    def __init__(self, status: int, code: Optional[str], message: str,
                 details: Optional[Dict[str, Any]] = None) -> None:
        super().__init__("%s (%s): %s" % (code, status, message))
        self.status = status
        self.code = code
        self.message = message
        self.details: Dict[str, Any] = details or {}


class ResetFailed(RbxError):
    """The server could not reset (the replay to k failed, or no sandbox):
    details carry the failing "step", "reason" and "retryable"."""


def error_from_body(status: int, raw: bytes) -> RbxError:
    """The exception for an error answer (status >= 400) with body raw."""
    try:
        err = json.loads(raw)["error"]
        if not isinstance(err, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return RbxError(status, "http_%d" % status, raw.decode(errors="replace"))
    cls: Type[RbxError] = ResetFailed if err.get("code") == "reset_failed" else RbxError
    details = {k: v for k, v in err.items() if k not in ("code", "message")}
    return cls(status, err.get("code"), err.get("message", ""), details)


def query(**params: Any) -> str:
    """A query string of the parameters that are not None ("" when none)."""
    q = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    return "?" + q if q else ""


def episodes_query(state: Optional[str], limit: int) -> str:
    return "?limit=%d" % limit + ("&state=" + urllib.parse.quote(state) if state else "")


def tool_call(call: Any) -> ToolCall:
    """Accepts {"name", "arguments"} or OpenAI's {"function": {...}}."""
    if not isinstance(call, dict):
        raise TypeError("tool_call: expected a dict such as {'name': 'shell', 'arguments': {...}}")
    return call


def reset_body(task: str, group: int, checkpoint: Checkpoint, seed: Optional[int], feed_curriculum: bool,
               group_key: Optional[str] = None) -> Dict[str, Any]:
    """The body of POST /v1/reset."""
    body: Dict[str, Any] = {"task": task, "checkpoint": checkpoint, "group": group}
    if seed is not None:
        body["seed"] = seed
    if feed_curriculum:
        body["feed_curriculum"] = True
    if group_key is not None:
        body["group_key"] = str(group_key)
    return body


def step_body(action: Any, intervened: bool, tokens: Optional[int]) -> Dict[str, Any]:
    body: Dict[str, Any] = {"tool_call": tool_call(action)}
    if intervened:
        body["intervened"] = True
    if tokens is not None:
        body["tokens"] = tokens
    return body


def check_reset_options(options: Optional[Mapping[str, Any]], default_task: Optional[str]) -> Tuple[Dict[str, Any], str]:
    """The reset options as a dict and the task, or ValueError."""
    opts = dict(options or {})
    unknown = set(opts) - RESET_OPTIONS
    if unknown:
        raise ValueError("reset options %s: expected %s" % (sorted(unknown), ", ".join(sorted(RESET_OPTIONS))))
    task = opts.get("task", default_task)
    if not task:
        raise ValueError('reset: no task: give Env(url, task) or options={"task": ...}')
    return opts, task


def episode_info(ep: Dict[str, Any], tools: List[Dict[str, Any]], extra: Dict[str, Any]) -> Dict[str, Any]:
    """The info dict of a reset or fork (Gymnasium's second return value)."""
    return dict(extra, episode=ep["id"], k=ep["k"], t=ep["t"], tools=tools, seed=ep.get("seed"),
                timings=ep.get("timings", {}), parent=ep.get("parent"), fork_t=ep.get("fork_t"))


def needs_verdict(r: Dict[str, Any]) -> bool:
    """Whether a step answer ended the episode with its sandbox still there
    (the verifier then judges): terminated, or truncated at the step limit."""
    return bool(r["terminated"] or (r["truncated"] and r["info"].get("truncation") != "episode_timeout"))


def reference_calls(trajectory: Mapping[str, Any], start: int = 0) -> List[Tuple[int, ToolCall, Optional[int]]]:
    """The tool calls that replay a reference trajectory's steps from
    start on (noop steps skipped): [(index, {"name", "arguments"}, tokens)]."""
    common = {"action", "observation", "volatile", "checkpoint", "compare", "tokens", "intervened", "messages"}
    out: List[Tuple[int, ToolCall, Optional[int]]] = []
    for i, step in enumerate(trajectory["steps"][start:], start):
        if step["action"] == "noop":
            continue
        args = {k: v for k, v in step.items() if k not in common}
        out.append((i, {"name": step["action"], "arguments": args}, step.get("tokens")))
    return out


class EnvState:
    """What Env and AsyncEnv share: Gymnasium's class attributes (tool calls
    and chat messages: no gymnasium.spaces, standard library only;
    info["tools"] lists the actions' JSON schemas) and the current
    episode's state."""

    metadata: Dict[str, Any] = {"render_modes": []}
    render_mode = None
    spec = None
    action_space = None
    observation_space = None

    def _init_state(self, task: Optional[str]) -> None:
        self.task = task
        self.episode_id: Optional[str] = None
        self.messages: Optional[List[Dict[str, Any]]] = None
        self.info: Optional[Dict[str, Any]] = None
        self.tools: Optional[List[Dict[str, Any]]] = None
        self.verdict: Optional[Dict[str, Any]] = None
        self._last: Dict[str, Any] = {}
