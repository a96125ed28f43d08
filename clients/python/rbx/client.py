"""The synchronous client for `rbx serve` (standard library only).

A Gymnasium-style environment over the rbx HTTP API (see docs/serve.md
and /v1/openapi.json)::

    env = Env("http://127.0.0.1:8700", "run-sh-path")
    messages, info = env.reset()                 # the curriculum picks k
    messages, info = env.reset(seed=1, options={"checkpoint": 9})
    obs, reward, terminated, truncated, info = env.step(
        {"name": "shell", "arguments": {"command": "ls"}})
    ev = env.evidence()                          # rubric now, live sandbox untouched
    obs, reward, terminated, truncated, info = env.step(None)  # done: verified
    fork = env.fork(t=7)                         # rollout-time intervention
    fork.step(call, intervened=True)
    env.close()

    groups = GroupReset(Client("http://127.0.0.1:8700"))   # GRPO: from any thread
    envs = groups("run-sh-path", 8)              # 8 episodes at the same k

Errors are raised as RbxError (with .code, .status and .details from the
server's {"error": {...}} body); a reset whose replay failed raises
ResetFailed, so a trainer drops the episode instead of hanging. The
asyncio twin of this module is rbx.aio (AsyncClient, AsyncEnv).
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, cast

from ._common import (JSON, Checkpoint, EnvState, RbxError, ResetFailed, ToolCall, check_reset_options, episode_info,
                      episodes_query, error_from_body, needs_verdict, query, reference_calls, reset_body, step_body)

__all__ = ["Client", "Env", "GroupReset", "RbxError", "ResetFailed", "reference_calls", "reset_group"]

StepResult = Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]
"""(observation, reward, terminated, truncated, info), Gymnasium's step()."""


class Client:
    """Low-level JSON calls to one server (one connection per call, so one
    Client is shared by any number of threads).

    For an HTTPS server (`rbx serve --tls-cert`) whose certificate the
    system does not trust (self-signed, a private CA), pass cafile, the PEM
    file of that certificate or CA; or an ssl.SSLContext as context.
    Transport failures raise urllib.error.URLError (an OSError).
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 600.0,
                 cafile: Optional[str] = None, context: Optional[ssl.SSLContext] = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        if context is None and cafile is not None:
            context = ssl.create_default_context(cafile=cafile)
        self.context = context

    def call(self, method: str, path: str, body: Optional[JSON] = None) -> JSON:
        """One request; the decoded JSON answer, or RbxError / ResetFailed."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout, context=self.context) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            raise error_from_body(e.code, e.read()) from None

    def _call_obj(self, method: str, path: str, body: Optional[JSON] = None) -> Dict[str, Any]:
        """call, for the routes that answer a JSON object."""
        return cast(Dict[str, Any], self.call(method, path, body))

    # Episodes (Env wraps these with Gymnasium's signatures).

    def reset(self, task: str, group: int = 1, checkpoint: Checkpoint = "auto", seed: Optional[int] = None,
              feed_curriculum: bool = False, group_key: Optional[str] = None) -> Dict[str, Any]:
        """POST /v1/reset: {task, k, t, purpose, tools, episodes: [...]}."""
        return self._call_obj("POST", "/v1/reset", reset_body(task, group, checkpoint, seed, feed_curriculum, group_key))

    def step(self, episode_id: str, action: ToolCall, intervened: bool = False,
             tokens: Optional[int] = None) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/step: the raw answer (observation, message, terminated, ...)."""
        return self._call_obj("POST", "/v1/episodes/%s/step" % episode_id, step_body(action, intervened, tokens))

    def evaluate(self, episode_id: str) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/evaluate: the verdict (reward, success, rubric, ...)."""
        return self._call_obj("POST", "/v1/episodes/%s/evaluate" % episode_id)

    def fork(self, episode_id: str, t: int) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/fork: {episode, tools}."""
        return self._call_obj("POST", "/v1/episodes/%s/fork" % episode_id, {"t": t})

    def close_episode(self, episode_id: str) -> None:
        """POST /v1/episodes/{id}/close: release without an outcome."""
        self.call("POST", "/v1/episodes/%s/close" % episode_id)

    # Listings.

    def task_page(self, limit: Optional[int] = None, cursor: Optional[str] = None, phase: Optional[str] = None,
                  q: Optional[str] = None) -> Dict[str, Any]:
        """One page of GET /v1/tasks: {tasks, total, next_cursor, phases}.

        limit: tasks per page (server default 100, at most 1000); cursor: a
        page's next_cursor; phase: one of the curriculum's phases; q: a
        substring of the id. next_cursor is "" on the last page."""
        return self._call_obj("GET", "/v1/tasks" + query(limit=limit, cursor=cursor, phase=phase, q=q))

    def iter_tasks(self, limit: int = 1000, phase: Optional[str] = None,
                   q: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Every task matching phase and q, fetched a page at a time."""
        cursor = None
        while True:
            page = self.task_page(limit=limit, cursor=cursor, phase=phase, q=q)
            yield from page["tasks"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    def tasks(self, phase: Optional[str] = None, q: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every served task (all pages)."""
        return list(self.iter_tasks(phase=phase, q=q))

    def curriculum(self, task: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None,
                   phase: Optional[str] = None, q: Optional[str] = None, history: Optional[int] = None) -> Dict[str, Any]:
        """GET /v1/curriculum: one task's state (task=), or one page of them
        ({strategy, tasks, total, next_cursor, phases}), paged as task_page."""
        return self._call_obj("GET", "/v1/curriculum" + query(task=task, limit=limit, cursor=cursor, phase=phase, q=q,
                                                         history=history))

    def episodes(self, state: Optional[str] = None, limit: int = 100) -> Dict[str, Any]:
        """GET /v1/episodes: newest first, optionally in one state ("open", "lost", ...)."""
        return self._call_obj("GET", "/v1/episodes" + episodes_query(state, limit))

    def episode(self, episode_id: str) -> Dict[str, Any]:
        return self._call_obj("GET", "/v1/episodes/" + episode_id)

    def export(self, episode_id: str) -> Dict[str, Any]:
        """The episode as a native rbx trajectory (a dict)."""
        return self._call_obj("GET", "/v1/episodes/%s/trajectory" % episode_id)

    def evidence(self, episode_id: str, verifier: bool = False, t: Optional[int] = None) -> Dict[str, Any]:
        """Reward-side evidence at the episode's state: the rubric (and the
        verifier with verifier=True) scored in a scratch sandbox that
        replays the episode; its own sandbox is not touched. t scores the
        state after the first t steps (prefix included, as in fork).
        Returns {"score", "rubric", "verifier"?, "at", "cost": {...}}.
        Raises RbxError "rate_limited" (429, details["retry_after"]) when
        called again on the episode within the server's interval."""
        body: Dict[str, Any] = {}
        if verifier:
            body["verifier"] = True
        if t is not None:
            body["t"] = t
        return self._call_obj("POST", "/v1/episodes/%s/evidence" % episode_id, body)

    def references(self, task: str) -> Dict[str, Any]:
        """The task's reference versions and latest candidate events
        (reference refresh): {"current", "versions": [...], "candidates": [...]}."""
        return self._call_obj("GET", "/v1/tasks/%s/references" % task)

    def reference(self, task: str, version: int) -> Dict[str, Any]:
        """One version of the task's reference as a native rbx trajectory (a dict)."""
        return self._call_obj("GET", "/v1/tasks/%s/references/%d" % (task, version))


class Env(EnvState):
    """One episode at a time of one task, with Gymnasium's signatures.

    reset(*, seed=None, options=None) -> (observation, info): observation
    is the prefix as OpenAI chat messages; info has "episode", "k", "t",
    "tools" (OpenAI function schemas), "purpose", "timings", "seed".
    options: {"task": id (default: the Env's), "checkpoint": "auto" or k,
    "feed_curriculum": bool, "group_key": str (resets with one key at
    "auto" share k: a GRPO group whose members reset one by one)}.

    step(action) -> (observation, reward, terminated, truncated, info):
    action is a tool call ({"name", "arguments"} or OpenAI's {"id",
    "type", "function": {...}}); observation is its result (output,
    exit_code, ...); info["message"] is the OpenAI tool message to append.
    action None means the policy is done: the verifier runs and the step
    returns its reward with terminated=True. The episode also ends
    (terminated) when an action ended the session shell, and (truncated)
    at the server's step limit or the task's episode_timeout; whenever the
    sandbox is still there, the last step carries the verifier's reward,
    and info["verdict"] the whole verdict (rubric, intervened share).

    close() releases the sandbox without an outcome. An Env is used by one
    thread at a time; make one per episode, or per thread (reset_group and
    GroupReset hand out many at once, from any thread).
    """

    def __init__(self, url: Optional[str], task: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 600.0, client: Optional[Client] = None, cafile: Optional[str] = None) -> None:
        if client is None:
            if url is None:
                raise ValueError("Env: give a url or a client")
            client = Client(url, token, timeout, cafile=cafile)
        self.client: Client = client
        self._init_state(task)

    @property
    def unwrapped(self) -> "Env":
        return self

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _bind(self, ep: Dict[str, Any], tools: List[Dict[str, Any]], extra: Dict[str, Any]) -> "Env":
        env = Env(None, ep["task"] if "task" in ep else self.task, client=self.client)
        env._adopt(ep, tools, extra)
        return env

    def _adopt(self, ep: Dict[str, Any], tools: List[Dict[str, Any]], extra: Dict[str, Any]) -> None:
        self.episode_id, self.messages, self.tools = ep["id"], ep["messages"], tools
        self.verdict, self._last = None, {}
        self.info = episode_info(ep, tools, extra)

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Mapping[str, Any]] = None) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
        """Start an episode (closing the previous one if it is still
        open); returns (observation, info). Raises ResetFailed, RbxError
        (e.g. "too_many_episodes", status 429, at the server's
        --max-episodes) and ValueError for an unknown option."""
        opts, task = check_reset_options(options, self.task)
        self.close()
        resp = self.client.reset(task, 1, opts.get("checkpoint", "auto"), seed, opts.get("feed_curriculum", False),
                                 opts.get("group_key"))
        self.task = task
        self._adopt(resp["episodes"][0], resp["tools"], {"purpose": resp["purpose"]})
        assert self.messages is not None and self.info is not None
        return self.messages, self.info

    def _need(self) -> str:
        if not self.episode_id:
            raise RuntimeError("no episode: call reset() first")
        return self.episode_id

    def step(self, action: Optional[ToolCall], *, intervened: bool = False,
             tokens: Optional[int] = None) -> StepResult:
        """Execute one tool call (or end the episode with None); returns
        (observation, reward, terminated, truncated, info). intervened and
        tokens are rbx's: an intervener's action, the policy's token count
        (the shift filter's evidence)."""
        if action is None:
            verdict = self.evaluate()
            return self._last, float(verdict["reward"]), True, False, {"verdict": verdict, "done": True}
        r = self.client.step(self._need(), action, intervened, tokens)
        info = dict(r["info"], step=r["step"], message=r["message"])
        self._last = r["observation"]
        reward = float(r["reward"])
        if needs_verdict(r):
            info["verdict"] = self.evaluate()  # the sandbox is still there: the verifier judges
            reward = float(info["verdict"]["reward"])
        return r["observation"], reward, r["terminated"], r["truncated"], info

    def evaluate(self) -> Dict[str, Any]:
        """Run the verifier: reward, success, verifier output, rubric,
        intervened share and shift_exceeded. The sandbox is released; a
        second call returns the same verdict."""
        if self.verdict is None:
            self.verdict = self.client.evaluate(self._need())
        return self.verdict

    def evidence(self, verifier: bool = False, t: Optional[int] = None) -> Dict[str, Any]:
        """The rubric (and verifier) at this episode's state, scored
        without touching its sandbox (see Client.evidence)."""
        return self.client.evidence(self._need(), verifier=verifier, t=t)

    def fork(self, t: int) -> "Env":
        """A new Env whose sandbox replays this episode's first t actions
        (reference prefix included); continue it with intervened steps."""
        r = self.client.fork(self._need(), t)
        return self._bind(r["episode"], r["tools"], {"purpose": "fork"})

    def close(self) -> None:
        """Release the sandbox without an outcome (idempotent; an
        evaluated or expired episode has nothing left to release)."""
        if self.episode_id and self.verdict is None:
            try:
                self.client.close_episode(self.episode_id)
            except RbxError as e:
                if e.code not in ("episode_finished", "unknown_episode"):
                    raise

    def export(self) -> Dict[str, Any]:
        """This episode as a native rbx trajectory (a dict)."""
        return self.client.export(self._need())


class GroupReset:
    """Resets GRPO-style groups: n episodes of a task at the same
    checkpoint, one reset call, returned as n Envs (each with .messages and
    .info, ready to step). Safe to call from many threads at once: it keeps
    no state between calls but the Client (stateless; each call opens its
    own connection), and a group the server refuses for its --max-episodes
    (429 too_many_episodes) is retried after the server's Retry-After until
    max_wait seconds have passed, so concurrent groups queue for sandboxes
    instead of failing. Close or evaluate every Env to free its sandbox.

        groups = GroupReset(Client(url))
        envs = groups("run-sh-path", 8)             # the curriculum picks k
        envs = groups("run-sh-path", 8, checkpoint=5, seed=7)
    """

    def __init__(self, client: Client, max_wait: float = 600.0, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.max_wait = max_wait
        self._sleep, self._clock = sleep, clock

    def __call__(self, task: str, n: int, checkpoint: Checkpoint = "auto", seed: Optional[int] = None,
                 feed_curriculum: bool = False, group_key: Optional[str] = None) -> List[Env]:
        if n < 1:
            raise ValueError("group of %d: expected n >= 1" % n)
        deadline = self._clock() + self.max_wait
        while True:
            try:
                resp = self.client.reset(task, n, checkpoint, seed, feed_curriculum, group_key)
                break
            except RbxError as e:
                wait = float(e.details.get("retry_after") or 1)
                if e.code != "too_many_episodes" or self._clock() + wait > deadline:
                    raise
                self._sleep(wait)
        envs = []
        for ep in resp["episodes"]:
            env = Env(None, task, client=self.client)
            env._adopt(ep, resp["tools"], {"purpose": resp["purpose"]})
            envs.append(env)
        return envs


def reset_group(client: Client, task: str, n: int, **kw: Any) -> List[Env]:
    """One GroupReset call: n Envs of task at the same k (see GroupReset)."""
    return GroupReset(client)(task, n, **kw)
