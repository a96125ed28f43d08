"""Client for `rbx serve` (standard library only).

A gym-style environment over the rbx HTTP API (see docs/serve.md and
/v1/openapi.json)::

    env = Env("http://127.0.0.1:8700", "run-sh-path")
    messages, info = env.reset()                 # the curriculum picks k
    obs, reward, terminated, truncated, info = env.step(
        {"name": "shell", "arguments": {"command": "ls"}})
    result = env.evaluate()                      # reward, success, rubric, shift filter
    ev = env.evidence()                          # rubric now, live sandbox untouched
    fork = env.fork(t=7)                         # rollout-time intervention
    fork.step(call, intervened=True)

Errors are raised as RbxError (with .code, .status and .details from the
server's {"error": {...}} body); a reset whose replay failed raises
ResetFailed, so a trainer drops the episode instead of hanging.
"""

import json
import ssl
import urllib.error
import urllib.request

__all__ = ["Client", "Env", "RbxError", "ResetFailed"]


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

    def tasks(self):
        return self.call("GET", "/v1/tasks")["tasks"]

    def curriculum(self, task=None):
        path = "/v1/curriculum" + ("?task=" + task if task else "")
        return self.call("GET", path)

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
    """One episode at a time of one task, gym style.

    reset() -> (messages, info); step(tool_call) -> (observation, reward,
    terminated, truncated, info); evaluate() -> the verdict dict;
    fork(t) -> a new Env on the forked episode; close().
    """

    def __init__(self, url, task, token=None, timeout=600.0, client=None, cafile=None):
        self.client = client or Client(url, token, timeout, cafile=cafile)
        self.task = task
        self.episode_id = None
        self.messages = None
        self.info = None
        self.tools = None

    def _bind(self, ep, tools, extra):
        env = Env(None, self.task, client=self.client)
        env.episode_id = ep["id"]
        env.messages = ep["messages"]
        env.tools = tools
        env.info = dict(extra, episode=ep["id"], k=ep["k"], t=ep["t"], tools=tools,
                        timings=ep.get("timings", {}), parent=ep.get("parent"), fork_t=ep.get("fork_t"))
        return env

    def reset(self, checkpoint="auto", group=1, seed=None, feed_curriculum=False):
        """Start an episode at checkpoint k ("auto": the curriculum's
        choice). With group=1 this Env becomes the episode and (messages,
        info) is returned; with group=n it returns n new Envs, all at the
        same k, each with .messages and .info. Episodes at an explicit k
        feed the curriculum only with feed_curriculum=True. Raises
        ResetFailed (and RbxError "too_many_episodes", status 429, when the
        server's --max-episodes are open)."""
        body = {"task": self.task, "checkpoint": checkpoint, "group": group}
        if seed is not None:
            body["seed"] = seed
        if feed_curriculum:
            body["feed_curriculum"] = True
        resp = self.client.call("POST", "/v1/reset", body)
        extra = {"purpose": resp["purpose"]}
        envs = [self._bind(ep, resp["tools"], extra) for ep in resp["episodes"]]
        if group != 1:
            return envs
        e = envs[0]
        self.episode_id, self.messages, self.info, self.tools = e.episode_id, e.messages, e.info, e.tools
        return self.messages, self.info

    def _need(self):
        if not self.episode_id:
            raise RuntimeError("no episode: call reset() first")
        return self.episode_id

    def step(self, tool_call, intervened=False, tokens=None):
        """Execute one tool call; returns (observation, reward, terminated,
        truncated, info). info["message"] is the OpenAI tool message."""
        body = {"tool_call": _tool_call(tool_call)}
        if intervened:
            body["intervened"] = True
        if tokens is not None:
            body["tokens"] = tokens
        r = self.client.call("POST", "/v1/episodes/%s/step" % self._need(), body)
        info = dict(r["info"], step=r["step"], message=r["message"])
        return r["observation"], r["reward"], r["terminated"], r["truncated"], info

    def evaluate(self):
        """Run the verifier: reward, success, verifier output, rubric,
        intervened share and shift_exceeded. The sandbox is released."""
        return self.client.call("POST", "/v1/episodes/%s/evaluate" % self._need())

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
        """Release the sandbox without an outcome (idempotent)."""
        if self.episode_id:
            return self.client.call("POST", "/v1/episodes/%s/close" % self.episode_id)
        return None

    def export(self):
        """This episode as a native rbx trajectory (a dict)."""
        return self.client.export(self._need())


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
