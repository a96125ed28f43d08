"""The asyncio client for `rbx serve` (standard library only).

The same calls as rbx.client, as coroutines, over a small HTTP/1.1
client on asyncio streams: kept-alive connections reused from a pool per
host, at most max_concurrency requests in flight (an asyncio.Semaphore;
the others wait for a slot), a timeout per request, bearer token and
HTTPS (an ssl.SSLContext, or cafile for a self-signed certificate)::

    async with AsyncClient("http://127.0.0.1:8700", max_concurrency=64) as client:
        async def episode(i):
            async with AsyncEnv(client, "run-sh-path") as env:
                messages, info = await env.reset(options={"checkpoint": "auto"})
                obs, reward, terminated, truncated, info = await env.step(
                    {"name": "shell", "arguments": {"command": "ls"}})
                obs, reward, terminated, truncated, info = await env.step(None)  # verified
                return reward
        rewards = await asyncio.gather(*(episode(i) for i in range(64)))

Errors are those of the sync client: RbxError (.code, .status,
.details), ResetFailed for a reset whose replay failed. Transport
failures raise OSError (ConnectionError, ssl.SSLError such as
ssl.SSLCertVerificationError) and a request slower than timeout raises
asyncio.TimeoutError (TimeoutError from Python 3.11 on).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import urllib.parse
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Tuple, cast

from ._common import (JSON, Checkpoint, EnvState, RbxError, ToolCall, check_reset_options, episode_info, episodes_query,
                      error_from_body, needs_verdict, query, reset_body, step_body)
from ._version import __version__

__all__ = ["AsyncClient", "AsyncEnv", "reset_group"]

StepResult = Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]

_MAX_HEADERS = 100


class _Stale(Exception):
    """The server closed a connection before answering anything on it."""


class _Conn:
    """One HTTP/1.1 connection: its streams and when it was last used."""

    __slots__ = ("reader", "writer", "uses", "idle_since", "closed", "on_close")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_close: Optional[Any] = None) -> None:
        self.reader, self.writer = reader, writer
        self.uses = 0
        self.idle_since = 0.0
        self.closed = False
        self.on_close = on_close

    def usable(self, now: float, idle_timeout: float) -> bool:
        return (not self.reader.at_eof() and not self.writer.is_closing()
                and now - self.idle_since < idle_timeout)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.on_close is not None:
            self.on_close()
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - the loop may be gone already
            pass


class AsyncClient:
    """Low-level JSON calls to one server, as coroutines, over pooled
    keep-alive connections.

    max_concurrency bounds the requests in flight (and so the connections:
    at most that many are open); a request waiting for a slot is not yet
    timed. timeout bounds each request, connecting included. idle_timeout:
    an idle connection older than this is not reused (the server closes
    idle connections too; a reused connection the server closed before
    answering is retried once on a new one). token, cafile and context are
    the sync Client's. Use it from one event loop at a time; close it with
    aclose() or `async with`.

    stats counts connections_opened, requests, reused (requests sent on a
    kept-alive connection), retries, max_in_flight (requests) and
    max_open (connections open at once, at most max_concurrency).
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 600.0,
                 cafile: Optional[str] = None, context: Optional[ssl.SSLContext] = None,
                 max_concurrency: int = 64, idle_timeout: float = 30.0) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency %d: expected >= 1" % max_concurrency)
        self.url = url.rstrip("/")
        u = urllib.parse.urlsplit(self.url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("url %r: expected http://HOST[:PORT] or https://HOST[:PORT]" % url)
        self._host = u.hostname
        self._port = u.port or (443 if u.scheme == "https" else 80)
        self._prefix = u.path
        host = "[%s]" % self._host if ":" in self._host else self._host
        self._host_header = host if u.port is None else "%s:%d" % (host, u.port)
        self.token = token
        self.timeout = timeout
        self.max_concurrency = max_concurrency
        self.idle_timeout = idle_timeout
        if context is None and u.scheme == "https":
            context = ssl.create_default_context(cafile=cafile)
        self.context = context if u.scheme == "https" else None
        self.stats: Dict[str, int] = {"connections_opened": 0, "requests": 0, "reused": 0, "retries": 0,
                                      "max_in_flight": 0, "max_open": 0}
        self._in_flight = 0
        self._open = 0
        self._idle: Dict[Tuple[str, int, bool], List[_Conn]] = {}
        self._sem: Optional[asyncio.Semaphore] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._closed = False

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the idle connections; requests in flight close theirs when
        they finish. The client must not be used afterwards."""
        self._closed = True
        conns = [c for pool in self._idle.values() for c in pool]
        self._idle.clear()
        for c in conns:
            c.close()
        for c in conns:
            try:
                await c.writer.wait_closed()
            except Exception:  # noqa: BLE001 - closing: nothing to report
                pass

    def _bind_loop(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._sem is None:
            # A new event loop (asyncio.run called again): the old loop's
            # connections and semaphore cannot be used from this one.
            for pool in self._idle.values():
                for c in pool:
                    c.close()
            self._idle.clear()
            self._loop, self._sem = loop, asyncio.Semaphore(self.max_concurrency)
        return self._sem

    async def call(self, method: str, path: str, body: Optional[JSON] = None) -> JSON:
        """One request; the decoded JSON answer, or RbxError / ResetFailed."""
        if self._closed:
            raise RuntimeError("AsyncClient is closed")
        data = None if body is None else json.dumps(body).encode()
        async with self._bind_loop():
            self._in_flight += 1
            self.stats["max_in_flight"] = max(self.stats["max_in_flight"], self._in_flight)
            try:
                status, raw = await asyncio.wait_for(self._request(method, self._prefix + path, data), self.timeout)
            finally:
                self._in_flight -= 1
        if status >= 400:
            raise error_from_body(status, raw)
        return json.loads(raw or b"null")

    async def _request(self, method: str, target: str, data: Optional[bytes]) -> Tuple[int, bytes]:
        for attempt in (0, 1):
            conn = await self._acquire()
            reused = conn.uses > 0
            try:
                status, raw, keep = await self._exchange(conn, method, target, data)
            except _Stale:
                conn.close()
                if reused and attempt == 0:
                    self.stats["retries"] += 1
                    continue
                raise ConnectionResetError("rbx: the server closed the connection before answering") from None
            except BaseException:
                conn.close()  # cancelled (timeout) or broken mid-answer: never reuse it
                raise
            self._release(conn, keep)
            return status, raw
        raise AssertionError("unreachable")

    def _key(self) -> Tuple[str, int, bool]:
        return (self._host, self._port, self.context is not None)

    async def _acquire(self) -> _Conn:
        pool = self._idle.get(self._key())
        now = asyncio.get_running_loop().time()
        while pool:
            conn = pool.pop()
            if conn.usable(now, self.idle_timeout):
                self.stats["reused"] += 1
                return conn
            conn.close()
        reader, writer = await asyncio.open_connection(
            self._host, self._port, ssl=self.context, server_hostname=self._host if self.context else None)
        self.stats["connections_opened"] += 1
        self._open += 1
        self.stats["max_open"] = max(self.stats["max_open"], self._open)
        return _Conn(reader, writer, self._closed_one)

    def _closed_one(self) -> None:
        self._open -= 1

    def _release(self, conn: _Conn, keep: bool) -> None:
        if not keep or self._closed:
            conn.close()
            return
        conn.idle_since = asyncio.get_running_loop().time()
        pool = self._idle.setdefault(self._key(), [])
        if len(pool) >= self.max_concurrency:
            conn.close()
        else:
            pool.append(conn)

    async def _exchange(self, conn: _Conn, method: str, target: str,
                        data: Optional[bytes]) -> Tuple[int, bytes, bool]:
        lines = ["%s %s HTTP/1.1" % (method, target or "/"), "Host: " + self._host_header,
                 "User-Agent: rbx-client/" + __version__, "Accept: application/json", "Connection: keep-alive"]
        if self.token:
            lines.append("Authorization: Bearer " + self.token)
        if data is not None:
            lines += ["Content-Type: application/json", "Content-Length: %d" % len(data)]
        elif method in ("POST", "PUT", "PATCH"):
            lines.append("Content-Length: 0")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        conn.uses += 1
        self.stats["requests"] += 1
        r = conn.reader
        try:
            conn.writer.write(head + (data or b""))
            await conn.writer.drain()
            status_line = await r.readline()
        except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
            raise _Stale() from None
        if not status_line:
            raise _Stale()
        parts = status_line.decode("latin-1").split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ConnectionError("rbx: not an HTTP/1.x answer: %r" % status_line[:80])
        version, status = parts[0], int(parts[1])
        headers: Dict[str, str] = {}
        for _ in range(_MAX_HEADERS + 1):
            line = await r.readline()
            if line in (b"\r\n", b"\n"):
                break
            if not line:
                raise asyncio.IncompleteReadError(b"", None)
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        else:
            raise ConnectionError("rbx: more than %d header lines" % _MAX_HEADERS)
        conn_hdr = headers.get("connection", "").lower()
        keep = (version == "HTTP/1.1" and "close" not in conn_hdr) or "keep-alive" in conn_hdr
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return status, b"", keep
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await self._read_chunked(r)
        elif "content-length" in headers:
            body = await r.readexactly(int(headers["content-length"]))
        else:
            body, keep = await r.read(), False  # delimited by the end of the connection
        return status, body, keep

    @staticmethod
    async def _read_chunked(r: asyncio.StreamReader) -> bytes:
        chunks: List[bytes] = []
        while True:
            size_line = await r.readline()
            if not size_line:
                raise asyncio.IncompleteReadError(b"", None)
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers, then the empty line
                    line = await r.readline()
                    if line in (b"\r\n", b"\n", b""):
                        return b"".join(chunks)
            chunks.append(await r.readexactly(size))
            await r.readexactly(2)  # CRLF after the chunk

    async def _call_obj(self, method: str, path: str, body: Optional[JSON] = None) -> Dict[str, Any]:
        """call, for the routes that answer a JSON object."""
        return cast(Dict[str, Any], await self.call(method, path, body))

    # Episodes (AsyncEnv wraps these with Gymnasium's signatures).

    async def reset(self, task: str, group: int = 1, checkpoint: Checkpoint = "auto", seed: Optional[int] = None,
                    feed_curriculum: bool = False, group_key: Optional[str] = None) -> Dict[str, Any]:
        """POST /v1/reset: {task, k, t, purpose, tools, episodes: [...]}."""
        return await self._call_obj("POST", "/v1/reset",
                               reset_body(task, group, checkpoint, seed, feed_curriculum, group_key))

    async def step(self, episode_id: str, action: ToolCall, intervened: bool = False,
                   tokens: Optional[int] = None) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/step: the raw answer."""
        return await self._call_obj("POST", "/v1/episodes/%s/step" % episode_id, step_body(action, intervened, tokens))

    async def evaluate(self, episode_id: str) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/evaluate: the verdict (reward, success, rubric, ...)."""
        return await self._call_obj("POST", "/v1/episodes/%s/evaluate" % episode_id)

    async def fork(self, episode_id: str, t: int) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/fork: {episode, tools}."""
        return await self._call_obj("POST", "/v1/episodes/%s/fork" % episode_id, {"t": t})

    async def close_episode(self, episode_id: str) -> None:
        """POST /v1/episodes/{id}/close: release without an outcome."""
        await self.call("POST", "/v1/episodes/%s/close" % episode_id)

    async def evidence(self, episode_id: str, verifier: bool = False, t: Optional[int] = None) -> Dict[str, Any]:
        """Reward-side evidence at the episode's state (see rbx.Client.evidence)."""
        body: Dict[str, Any] = {}
        if verifier:
            body["verifier"] = True
        if t is not None:
            body["t"] = t
        return await self._call_obj("POST", "/v1/episodes/%s/evidence" % episode_id, body)

    # Listings.

    async def task_page(self, limit: Optional[int] = None, cursor: Optional[str] = None,
                        phase: Optional[str] = None, q: Optional[str] = None) -> Dict[str, Any]:
        """One page of GET /v1/tasks: {tasks, total, next_cursor, phases}."""
        return await self._call_obj("GET", "/v1/tasks" + query(limit=limit, cursor=cursor, phase=phase, q=q))

    async def iter_tasks(self, limit: int = 1000, phase: Optional[str] = None,
                         q: Optional[str] = None) -> AsyncIterator[Dict[str, Any]]:
        """Every task matching phase and q, fetched a page at a time."""
        cursor = None
        while True:
            page = await self.task_page(limit=limit, cursor=cursor, phase=phase, q=q)
            for t in page["tasks"]:
                yield t
            cursor = page["next_cursor"]
            if not cursor:
                return

    async def tasks(self, phase: Optional[str] = None, q: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every served task (all pages)."""
        return [t async for t in self.iter_tasks(phase=phase, q=q)]

    async def curriculum(self, task: Optional[str] = None, limit: Optional[int] = None,
                         cursor: Optional[str] = None, phase: Optional[str] = None, q: Optional[str] = None,
                         history: Optional[int] = None) -> Dict[str, Any]:
        """GET /v1/curriculum: one task's state (task=), or one page of them."""
        return await self._call_obj("GET", "/v1/curriculum" + query(task=task, limit=limit, cursor=cursor, phase=phase,
                                                               q=q, history=history))

    async def episodes(self, state: Optional[str] = None, limit: int = 100) -> Dict[str, Any]:
        """GET /v1/episodes: newest first, optionally in one state ("open", "lost", ...)."""
        return await self._call_obj("GET", "/v1/episodes" + episodes_query(state, limit))

    async def episode(self, episode_id: str) -> Dict[str, Any]:
        return await self._call_obj("GET", "/v1/episodes/" + episode_id)

    async def export(self, episode_id: str) -> Dict[str, Any]:
        """The episode as a native rbx trajectory (a dict)."""
        return await self._call_obj("GET", "/v1/episodes/%s/trajectory" % episode_id)

    async def references(self, task: str) -> Dict[str, Any]:
        return await self._call_obj("GET", "/v1/tasks/%s/references" % task)

    async def reference(self, task: str, version: int) -> Dict[str, Any]:
        return await self._call_obj("GET", "/v1/tasks/%s/references/%d" % (task, version))


class AsyncEnv(EnvState):
    """rbx.Env as coroutines: one episode at a time of one task, with
    Gymnasium's signatures (await env.reset(seed=, options=), await
    env.step(action), await env.close()). Many AsyncEnvs share one
    AsyncClient (its pool and its max_concurrency); pass a client, or a
    url (the AsyncEnv then owns a client of its own, closed by close())."""


    def __init__(self, client: "AsyncClient | str", task: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 600.0, cafile: Optional[str] = None) -> None:
        self._owns = isinstance(client, str)
        self.client: AsyncClient = AsyncClient(client, token, timeout, cafile=cafile) if isinstance(client, str) \
            else client
        self._init_state(task)

    @property
    def unwrapped(self) -> "AsyncEnv":
        return self

    async def __aenter__(self) -> "AsyncEnv":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def _adopt(self, ep: Dict[str, Any], tools: List[Dict[str, Any]], extra: Dict[str, Any]) -> None:
        self.episode_id, self.messages, self.tools = ep["id"], ep["messages"], tools
        self.verdict, self._last = None, {}
        self.info = episode_info(ep, tools, extra)

    def _need(self) -> str:
        if not self.episode_id:
            raise RuntimeError("no episode: call reset() first")
        return self.episode_id

    async def reset(self, *, seed: Optional[int] = None,
                    options: Optional[Mapping[str, Any]] = None) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
        """Start an episode (closing the previous one if it is still open);
        (observation, info) as rbx.Env.reset, options likewise."""
        opts, task = check_reset_options(options, self.task)
        await self._release()
        resp = await self.client.reset(task, 1, opts.get("checkpoint", "auto"), seed,
                                       opts.get("feed_curriculum", False), opts.get("group_key"))
        self.task = task
        self._adopt(resp["episodes"][0], resp["tools"], {"purpose": resp["purpose"]})
        assert self.messages is not None and self.info is not None
        return self.messages, self.info

    async def step(self, action: Optional[ToolCall], *, intervened: bool = False,
                   tokens: Optional[int] = None) -> StepResult:
        """(observation, reward, terminated, truncated, info) as rbx.Env.step;
        None ends the episode with the verifier's reward."""
        if action is None:
            verdict = await self.evaluate()
            return self._last, float(verdict["reward"]), True, False, {"verdict": verdict, "done": True}
        r = await self.client.step(self._need(), action, intervened, tokens)
        info = dict(r["info"], step=r["step"], message=r["message"])
        self._last = r["observation"]
        reward = float(r["reward"])
        if needs_verdict(r):
            info["verdict"] = await self.evaluate()
            reward = float(info["verdict"]["reward"])
        return r["observation"], reward, r["terminated"], r["truncated"], info

    async def evaluate(self) -> Dict[str, Any]:
        """The verifier's verdict; the sandbox is released; cached."""
        if self.verdict is None:
            self.verdict = await self.client.evaluate(self._need())
        return self.verdict

    async def evidence(self, verifier: bool = False, t: Optional[int] = None) -> Dict[str, Any]:
        return await self.client.evidence(self._need(), verifier=verifier, t=t)

    async def fork(self, t: int) -> "AsyncEnv":
        """A new AsyncEnv (same client) replaying this episode's first t actions."""
        r = await self.client.fork(self._need(), t)
        env = AsyncEnv(self.client, r["episode"].get("task", self.task))
        env._adopt(r["episode"], r["tools"], {"purpose": "fork"})
        return env

    async def export(self) -> Dict[str, Any]:
        return await self.client.export(self._need())

    async def _release(self) -> None:
        if self.episode_id and self.verdict is None:
            try:
                await self.client.close_episode(self.episode_id)
            except RbxError as e:
                if e.code not in ("episode_finished", "unknown_episode"):
                    raise

    async def close(self) -> None:
        """Release the sandbox without an outcome (idempotent); an AsyncEnv
        made from a url also closes its own client."""
        try:
            await self._release()
        finally:
            if self._owns:
                await self.client.aclose()


async def reset_group(client: AsyncClient, task: str, n: int, checkpoint: Checkpoint = "auto",
                      seed: Optional[int] = None, feed_curriculum: bool = False, group_key: Optional[str] = None,
                      max_wait: float = 600.0) -> List[AsyncEnv]:
    """n AsyncEnvs of task at the same k, one reset call (rbx.GroupReset's
    twin): a group refused with too_many_episodes (the server's
    --max-episodes) is retried after its Retry-After until max_wait."""
    if n < 1:
        raise ValueError("group of %d: expected n >= 1" % n)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max_wait
    while True:
        try:
            resp = await client.reset(task, n, checkpoint, seed, feed_curriculum, group_key)
            break
        except RbxError as e:
            wait = float(e.details.get("retry_after") or 1)
            if e.code != "too_many_episodes" or loop.time() + wait > deadline:
                raise
            await asyncio.sleep(wait)
    envs = []
    for ep in resp["episodes"]:
        env = AsyncEnv(client, task)
        env._adopt(ep, resp["tools"], {"purpose": resp["purpose"]})
        envs.append(env)
    return envs
