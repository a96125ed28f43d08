"""Client for `rbx serve` (standard library only).

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
ResetFailed, so a trainer drops the episode instead of hanging.
"""

import json
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "Env", "GroupReset", "RbxError", "ResetFailed", "reference_calls", "reset_group"]


class RbxError(Exception):
    """An error answer from the server: code, HTTP status, details."""

    def __init__(self, status, code, message, details=None):
        super().__init__("%s (%s): %s" % (code, status, message))
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


class ResetFailed(RbxError):
    """The server could not reset (the replay to k failed, or no sandbox):
    details carry the failing "step", "reason" and "retryable"."""


def _query(**params):
    """A query string of the parameters that are not None ("" when none)."""
    q = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    return "?" + q if q else ""


class Client:
    """Low-level JSON calls to one server.

    For an HTTPS server (`rbx serve --tls-cert`) whose certificate the
    system does not trust (self-signed, a private CA), pass cafile, the PEM
    file of that certificate or CA; or an ssl.SSLContext as context.
    """

    def __init__(self, url, token=None, timeout=600.0, cafile=None, context=None):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        if context is None and cafile is not None:
            context = ssl.create_default_context(cafile=cafile)
        self.context = context

    def call(self, method, path, body=None):
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
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
            except (ValueError, KeyError, TypeError):
                raise RbxError(e.code, "http_%d" % e.code, raw.decode(errors="replace")) from None
            cls = ResetFailed if err.get("code") == "reset_failed" else RbxError
            details = {k: v for k, v in err.items() if k not in ("code", "message")}
            raise cls(e.code, err.get("code"), err.get("message", ""), details) from None

    def task_page(self, limit=None, cursor=None, phase=None, q=None):
        """One page of GET /v1/tasks: {tasks, total, next_cursor, phases}.

        limit: tasks per page (server default 100, at most 1000); cursor: a
        page's next_cursor; phase: one of the curriculum's phases; q: a
        substring of the id. next_cursor is "" on the last page."""
        return self.call("GET", "/v1/tasks" + _query(limit=limit, cursor=cursor, phase=phase, q=q))

    def iter_tasks(self, limit=1000, phase=None, q=None):
        """Every task matching phase and q, fetched a page at a time."""
        cursor = None
        while True:
            page = self.task_page(limit=limit, cursor=cursor, phase=phase, q=q)
            yield from page["tasks"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    def tasks(self, phase=None, q=None):
        """Every served task (all pages)."""
        return list(self.iter_tasks(phase=phase, q=q))

    def curriculum(self, task=None, limit=None, cursor=None, phase=None, q=None, history=None):
        """GET /v1/curriculum: one task's state (task=), or one page of them
        ({strategy, tasks, total, next_cursor, phases}), paged as task_page."""
        return self.call("GET", "/v1/curriculum" + _query(task=task, limit=limit, cursor=cursor, phase=phase, q=q,
                                                          history=history))

    def episodes(self, state=None, limit=100):
        q = "?limit=%d" % limit + ("&state=" + state if state else "")
        return self.call("GET", "/v1/episodes" + q)

    def episode(self, episode_id):
        return self.call("GET", "/v1/episodes/" + episode_id)

    def export(self, episode_id):
        """The episode as a native rbx trajectory (a dict)."""
        return self.call("GET", "/v1/episodes/%s/trajectory" % episode_id)

    def evidence(self, episode_id, verifier=False, t=None):
        """Reward-side evidence at the episode's state: the rubric (and the
        verifier with verifier=True) scored in a scratch sandbox that
        replays the episode; its own sandbox is not touched. t scores the
        state after the first t steps (prefix included, as in fork).
        Returns {"score", "rubric", "verifier"?, "at", "cost": {...}}.
        Raises RbxError "rate_limited" (429, details["retry_after"]) when
        called again on the episode within the server's interval."""
        body = {}
        if verifier:
            body["verifier"] = True
        if t is not None:
            body["t"] = t
        return self.call("POST", "/v1/episodes/%s/evidence" % episode_id, body)

    def references(self, task):
        """The task's reference versions and latest candidate events
        (reference refresh): {"current", "versions": [...], "candidates": [...]}."""
        return self.call("GET", "/v1/tasks/%s/references" % task)

    def reference(self, task, version):
        """One version of the task's reference as a native rbx trajectory (a dict)."""
        return self.call("GET", "/v1/tasks/%s/references/%d" % (task, version))


def _tool_call(call):
    """Accepts {"name", "arguments"} or OpenAI's {"function": {...}}."""
    if not isinstance(call, dict):
        raise TypeError("tool_call: expected a dict such as {'name': 'shell', 'arguments': {...}}")
    return call


class Env:
    """One episode at a time of one task, with Gymnasium's signatures.

    reset(*, seed=None, options=None) -> (observation, info): observation
    is the prefix as OpenAI chat messages; info has "episode", "k", "t",
    "tools" (OpenAI function schemas), "purpose", "timings", "seed".
    options: {"task": id (default: the Env's), "checkpoint": "auto" or k,
    "feed_curriculum": bool}.

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

    metadata = {"render_modes": []}
    render_mode = None
    spec = None
    # Tool calls and chat messages: no gymnasium.spaces (standard library
    # only); info["tools"] lists the actions' JSON schemas.
    action_space = None
    observation_space = None

    def __init__(self, url, task=None, token=None, timeout=600.0, client=None, cafile=None):
        self.client = client or Client(url, token, timeout, cafile=cafile)
        self.task = task
        self.episode_id = None
        self.messages = None
        self.info = None
        self.tools = None
        self.verdict = None
        self._last = {}

    @property
    def unwrapped(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _bind(self, ep, tools, extra):
        env = Env(None, ep["task"] if "task" in ep else self.task, client=self.client)
        env._adopt(ep, tools, extra)
        return env

    def _adopt(self, ep, tools, extra):
        self.episode_id, self.messages, self.tools = ep["id"], ep["messages"], tools
        self.verdict, self._last = None, {}
        self.info = dict(extra, episode=ep["id"], k=ep["k"], t=ep["t"], tools=tools, seed=ep.get("seed"),
                         timings=ep.get("timings", {}), parent=ep.get("parent"), fork_t=ep.get("fork_t"))

    def reset(self, *, seed=None, options=None):
        """Start an episode (closing the previous one if it is still
        open); returns (observation, info). Raises ResetFailed, RbxError
        (e.g. "too_many_episodes", status 429, at the server's
        --max-episodes) and ValueError for an unknown option."""
        opts = dict(options or {})
        unknown = set(opts) - {"task", "checkpoint", "feed_curriculum"}
        if unknown:
            raise ValueError("reset options %s: expected task, checkpoint, feed_curriculum" % sorted(unknown))
        task = opts.get("task", self.task)
        if not task:
            raise ValueError('reset: no task: give Env(url, task) or options={"task": ...}')
        self.close()
        resp = self.client.call("POST", "/v1/reset", _reset_body(task, 1, opts.get("checkpoint", "auto"), seed,
                                                                  opts.get("feed_curriculum", False)))
        self.task = task
        self._adopt(resp["episodes"][0], resp["tools"], {"purpose": resp["purpose"]})
        return self.messages, self.info

    def _need(self):
        if not self.episode_id:
            raise RuntimeError("no episode: call reset() first")
        return self.episode_id

    def step(self, action, *, intervened=False, tokens=None):
        """Execute one tool call (or end the episode with None); returns
        (observation, reward, terminated, truncated, info). intervened and
        tokens are rbx's: an intervener's action, the policy's token count
        (the shift filter's evidence)."""
        if action is None:
            verdict = self.evaluate()
            return self._last, float(verdict["reward"]), True, False, {"verdict": verdict, "done": True}
        body = {"tool_call": _tool_call(action)}
        if intervened:
            body["intervened"] = True
        if tokens is not None:
            body["tokens"] = tokens
        r = self.client.call("POST", "/v1/episodes/%s/step" % self._need(), body)
        info = dict(r["info"], step=r["step"], message=r["message"])
        self._last = r["observation"]
        reward = r["reward"]
        if r["terminated"] or (r["truncated"] and info.get("truncation") != "episode_timeout"):
            info["verdict"] = self.evaluate()  # the sandbox is still there: the verifier judges
            reward = float(info["verdict"]["reward"])
        return r["observation"], reward, r["terminated"], r["truncated"], info

    def evaluate(self):
        """Run the verifier: reward, success, verifier output, rubric,
        intervened share and shift_exceeded. The sandbox is released; a
        second call returns the same verdict."""
        if self.verdict is None:
            self.verdict = self.client.call("POST", "/v1/episodes/%s/evaluate" % self._need())
        return self.verdict

    def evidence(self, verifier=False, t=None):
        """The rubric (and verifier) at this episode's state, scored
        without touching its sandbox (see Client.evidence)."""
        return self.client.evidence(self._need(), verifier=verifier, t=t)

    def fork(self, t):
        """A new Env whose sandbox replays this episode's first t actions
        (reference prefix included); continue it with intervened steps."""
        r = self.client.call("POST", "/v1/episodes/%s/fork" % self._need(), {"t": t})
        return self._bind(r["episode"], r["tools"], {"purpose": "fork"})

    def close(self):
        """Release the sandbox without an outcome (idempotent; an
        evaluated or expired episode has nothing left to release)."""
        if self.episode_id and self.verdict is None:
            try:
                self.client.call("POST", "/v1/episodes/%s/close" % self.episode_id)
            except RbxError as e:
                if e.code not in ("episode_finished", "unknown_episode"):
                    raise

    def export(self):
        """This episode as a native rbx trajectory (a dict)."""
        return self.client.export(self._need())


def _reset_body(task, group, checkpoint, seed, feed_curriculum):
    body = {"task": task, "checkpoint": checkpoint, "group": group}
    if seed is not None:
        body["seed"] = seed
    if feed_curriculum:
        body["feed_curriculum"] = True
    return body


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

    def __init__(self, client, max_wait=600.0, sleep=time.sleep, clock=time.monotonic):
        self.client = client
        self.max_wait = max_wait
        self._sleep, self._clock = sleep, clock

    def __call__(self, task, n, checkpoint="auto", seed=None, feed_curriculum=False):
        if n < 1:
            raise ValueError("group of %d: expected n >= 1" % n)
        body = _reset_body(task, n, checkpoint, seed, feed_curriculum)
        deadline = self._clock() + self.max_wait
        while True:
            try:
                resp = self.client.call("POST", "/v1/reset", body)
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


def reset_group(client, task, n, **kw):
    """One GroupReset call: n Envs of task at the same k (see GroupReset)."""
    return GroupReset(client)(task, n, **kw)


def reference_calls(trajectory, start=0):
    """The tool calls that replay a reference trajectory's steps from
    start on (noop steps skipped): [(index, {"name", "arguments"}, tokens)]."""
    common = {"action", "observation", "volatile", "checkpoint", "compare", "tokens", "intervened", "messages"}
    out = []
    for i, step in enumerate(trajectory["steps"][start:], start):
        if step["action"] == "noop":
            continue
        args = {k: v for k, v in step.items() if k not in common}
        out.append((i, {"name": step["action"], "arguments": args}, step.get("tokens")))
    return out
