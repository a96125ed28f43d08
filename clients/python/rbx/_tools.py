"""Text in and out of tool calls, for the trainer adapters (rbx.trl,
rbx.skyrl): the observation of a step as text, a model's text as a tool
call, the prefix of a reset as text."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Dict, List, Mapping, Optional

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)
_SUBMIT = re.compile(r"<submit\s*/?>", re.I)


def observation_text(obs: Mapping[str, Any]) -> str:
    """A step's observation as the text a model reads: the output, then a
    bracketed line for a non-zero exit code, a timeout, a truncation or an
    error."""
    parts = []
    out = obs.get("output")
    if out:
        parts.append(out if out.endswith("\n") else out + "\n")
    notes = []
    if obs.get("error"):
        notes.append("error: %s" % obs["error"])
    if obs.get("timed_out"):
        notes.append("timed out")
    if obs.get("truncated"):
        notes.append("output truncated to its last 64 KiB of %s bytes" % obs.get("output_bytes", "?"))
    if obs.get("session_lost"):
        notes.append("the shell session ended")
    code = obs.get("exit_code")
    if code not in (None, 0):
        notes.append("exit code %s" % code)
    if notes:
        parts.append("[%s]\n" % "; ".join(notes))
    return "".join(parts) or "[no output]\n"


def parse_tool_call(text: str) -> Optional[Dict[str, Any]]:
    """The first tool call in a model's text, as {"name", "arguments"}:

    - <tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>
      (the Hermes / Qwen format);
    - a JSON object {"name", "arguments"} (or OpenAI's {"function": {"name",
      "arguments"}}), the whole text or inside a ```json fence;
    - <submit/> (or a call named "submit"): {"name": "submit", "arguments": {}}.

    None when the text has no tool call; ValueError when it has one that is
    not valid (bad JSON, no name)."""
    m = _TAGGED.search(text)
    if m:
        return _call_from_json(m.group(1))
    if _SUBMIT.search(text):
        return {"name": "submit", "arguments": {}}
    stripped = text.strip()
    candidates = [stripped] if stripped.startswith("{") and stripped.endswith("}") else []
    candidates += _FENCED.findall(text)
    for c in candidates:
        try:
            return _call_from_json(c)
        except ValueError:
            continue
    return None


def _call_from_json(raw: str) -> Dict[str, Any]:
    try:
        obj = json.loads(raw)
    except ValueError as e:
        raise ValueError("tool call is not valid JSON: %s" % e) from None
    if not isinstance(obj, dict):
        raise ValueError("tool call: expected a JSON object")
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError('tool call: no "name"')
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError as e:
            raise ValueError("tool call arguments are not valid JSON: %s" % e) from None
    if not isinstance(args, dict):
        raise ValueError("tool call: arguments must be a JSON object")
    return {"name": name, "arguments": args}


def prefix_steps(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The replayed part of a reset's messages: from the first assistant
    message on (the head before it is the system prompt and instruction)."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            return messages[i:]
    return []


def head(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The system prompt and instruction before the replayed steps."""
    return messages[:len(messages) - len(prefix_steps(messages))]


def call_text(call: Mapping[str, Any]) -> str:
    """An OpenAI tool call as <tool_call>{"name", "arguments"}</tool_call>."""
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    return "<tool_call>%s</tool_call>" % json.dumps({"name": fn.get("name"), "arguments": args})


def prefix_text(messages: List[Dict[str, Any]], k: int, t: int) -> str:
    """The replayed steps as one text: what the policy continues from."""
    steps = prefix_steps(messages)
    if not steps:
        return "The environment is at its start (checkpoint 0 of %d)." % t
    lines = ["The environment was reset to checkpoint %d of %d: these actions were already taken." % (k, t)]
    for m in steps:
        if m.get("role") == "assistant":
            if m.get("content"):
                lines.append(str(m["content"]))
            for c in m.get("tool_calls") or []:
                lines.append(call_text(c))
        elif m.get("role") == "tool":
            lines.append("<tool_response>\n%s</tool_response>" % _ensure_nl(str(m.get("content") or "")))
    return "\n".join(lines)


def _ensure_nl(s: str) -> str:
    return s if s.endswith("\n") else s + "\n"


def row_group_key(row: Mapping[str, Any], keys: List[str]) -> str:
    """A GRPO group's key from a dataset row: its "group" column, else its
    "seed", else a hash of the reset arguments (identical rows, one key)."""
    for name in ("group", "group_key", "seed"):
        if row.get(name) is not None:
            return str(row[name])
    picked = {k: row.get(k) for k in keys}
    digest = hashlib.sha256(json.dumps(picked, sort_keys=True, default=str).encode()).hexdigest()
    return "row-" + digest[:24]


TOOL_FORMAT = (
    "Call one tool per turn as <tool_call>{\"name\": TOOL, \"arguments\": {...}}</tool_call>. Tools: "
    "shell {command, cwd?, timeout?}; write_file {path, content, mode?}; read_file {path}; "
    "edit_file {path, old, new} or {path, insert_line, text}; http {method, url, headers?, body?}. "
    "When the task is done, answer <submit/> (or call the tool \"submit\").")
"""A system-prompt paragraph describing the accepted tool-call format."""
