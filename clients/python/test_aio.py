"""Tests of rbx.AsyncClient / rbx.AsyncEnv: 64 concurrent episodes against a
real `rbx serve` (bin/rbx, local runtime; RBX_RUNTIME=docker to run them on
Docker), the errors, bounded concurrency, keep-alive reuse, and the HTTP/1.1
details against a tiny fake server. Run: python3 -m unittest discover -s clients/python -v
"""

import asyncio
import json
import os
import shutil
import ssl
import statistics
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rbx import AsyncClient, AsyncEnv, RbxError, ResetFailed, async_reset_group, reference_calls  # noqa: E402
from test_rbx_client import DIVERGE_TASK, DIVERGE_TRAJ, ROOT, TASK, WRONG, Server, tls_server  # noqa: E402

N = int(os.environ.get("RBX_TEST_EPISODES", "64"))
RUNTIME = os.environ.get("RBX_RUNTIME", "local")


def run(coro):
    return asyncio.run(coro)



def engine_containers(label):
    """Every container with label, from the Docker Engine API on its unix
    socket (stdlib only: the machine need not have the docker CLI)."""
    import http.client
    import socket
    import urllib.parse

    class UnixConnection(http.client.HTTPConnection):
        def connect(self):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")[len("unix://"):])

    conn = UnixConnection("localhost", timeout=30)
    query = urllib.parse.urlencode({"all": "1", "filters": json.dumps({"label": [label]})})
    conn.request("GET", "/v1.41/containers/json?" + query)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    assert resp.status == 200, "engine: %s %s" % (resp.status, body[:200])
    return json.loads(body)

class AsyncServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rbx-aio-test-")
        tasks = os.path.join(cls.dir, "tasks")
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(tasks, TASK))
        os.makedirs(os.path.join(tasks, "diverges"))
        with open(os.path.join(tasks, "diverges", "task.yaml"), "w") as f:
            f.write(DIVERGE_TASK)
        with open(os.path.join(tasks, "diverges", "trajectory.json"), "w") as f:
            json.dump(DIVERGE_TRAJ, f)
        with open(os.path.join(ROOT, "examples", TASK, "trajectory.json")) as f:
            cls.ref = json.load(f)
        extra = ["--max-episodes", str(N + 8), "--max-group", str(max(64, N)), "--pool", "16",
                 "--max-sandboxes", str(2 * N + 16), "--runtime", RUNTIME]  # the last --runtime wins
        cls.server = Server(tasks, os.path.join(cls.dir, "state.db"), *extra)

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)
        if RUNTIME == "docker":  # no container of this server left (owner: HOST_PID_START)
            left = ["%s %s" % (c["Id"][:12], c["Labels"].get("rbx.owner", ""))
                    for c in engine_containers("rbx.managed")
                    if "_%d_" % cls.server.proc.pid in c["Labels"].get("rbx.owner", "")]
            assert not left, "containers left: %s" % left
            print("docker: no container of rbx serve (pid %d) left" % cls.server.proc.pid, file=sys.stderr)

    def test_concurrent_episodes(self):
        """N (64) episodes at once through one AsyncClient: every one reset
        before any steps (N open together), at checkpoints spread over the
        reference; three in four play the reference to the end (reward 1),
        one in four then destroys the work (reward 0)."""
        T = len(self.ref["steps"])

        async def main():
            async with AsyncClient(self.server.url, max_concurrency=N) as client:
                all_open = asyncio.Event()
                opened = []
                reset_ms, step_ms = [], []

                async def episode(i):
                    k, wrong = (i * 5) % T, i % 4 == 3
                    async with AsyncEnv(client, TASK) as env:
                        t0 = time.monotonic()
                        _, info = await env.reset(options={"checkpoint": k})
                        reset_ms.append((time.monotonic() - t0) * 1000)
                        self.assertEqual(info["k"], k)
                        opened.append(env.episode_id)
                        if len(opened) == N:
                            all_open.set()
                        await asyncio.wait_for(all_open.wait(), 300)
                        for _, call, tokens in reference_calls(self.ref, k):
                            t0 = time.monotonic()
                            obs, reward, terminated, truncated, _ = await env.step(call, tokens=tokens)
                            step_ms.append((time.monotonic() - t0) * 1000)
                            self.assertEqual((reward, terminated, truncated), (0.0, False, False))
                        if wrong:
                            await env.step(WRONG)
                        _, reward, terminated, _, info = await env.step(None)
                        self.assertTrue(terminated)
                        return i, k, wrong, reward

                t0 = time.monotonic()
                results = await asyncio.gather(*(episode(i) for i in range(N)))
                wall = time.monotonic() - t0
                still_open = (await client.episodes(state="open"))["episodes"]
                return results, wall, reset_ms, step_ms, dict(client.stats), still_open

        results, wall, reset_ms, step_ms, stats, still_open = run(main())
        self.assertEqual(len(results), N)
        for i, k, wrong, reward in results:
            self.assertEqual(reward, 0.0 if wrong else 1.0, "episode %d at k=%d" % (i, k))
        self.assertEqual(still_open, [])
        self.assertEqual(stats["max_in_flight"], N)  # every reset was in flight at once
        self.assertLessEqual(stats["max_open"], N)  # (a connection idle past idle_timeout is replaced)
        self.assertGreater(stats["reused"], stats["requests"] // 2)
        q = statistics.quantiles
        print("\n%d concurrent episodes (%s runtime): %.1f s wall, %d steps; reset p50 %.0f ms p95 %.0f ms; "
              "step p50 %.1f ms p95 %.1f ms; %d requests on %d connections (at most %d open); rewards %d x 1, %d x 0"
              % (N, RUNTIME, wall, len(step_ms), statistics.median(reset_ms), q(reset_ms, n=20)[-1],
                 statistics.median(step_ms), q(step_ms, n=20)[-1], stats["requests"], stats["connections_opened"],
                 stats["max_open"], sum(r for *_, r in results), sum(1 for *_, r in results if r == 0)), file=sys.stderr)

    def test_bounded_concurrency(self):
        async def main():
            async with AsyncClient(self.server.url, max_concurrency=3) as client:
                async def one(i):
                    async with AsyncEnv(client, TASK) as env:
                        await env.reset(options={"checkpoint": 11})
                        await env.step({"name": "shell", "arguments": {"command": "true"}})
                        return (await env.step(None))[1]
                rewards = await asyncio.gather(*(one(i) for i in range(9)))
                return rewards, dict(client.stats)

        rewards, stats = run(main())
        self.assertEqual(rewards, [1.0] * 9)
        self.assertEqual(stats["max_in_flight"], 3)
        self.assertLessEqual(stats["max_open"], 3)
        self.assertEqual(stats["requests"], 27)

    def test_errors(self):
        async def main():
            async with AsyncClient(self.server.url) as client:
                with self.assertRaises(RbxError) as cm:
                    await AsyncEnv(client, "no-such-task").reset()
                self.assertEqual((cm.exception.status, cm.exception.code), (404, "unknown_task"))
                with self.assertRaises(ResetFailed) as cm:
                    await AsyncEnv(client, "diverges").reset(options={"checkpoint": 1})
                self.assertEqual((cm.exception.code, cm.exception.details["step"]), ("reset_failed", 0))
                self.assertFalse(cm.exception.details["retryable"])
                with self.assertRaises(RbxError) as cm:
                    await AsyncEnv(client, TASK).reset(options={"checkpoint": 99})
                self.assertEqual(cm.exception.code, "bad_checkpoint")
                with self.assertRaises(ValueError):
                    await AsyncEnv(client, TASK).reset(options={"k": 3})
                env = AsyncEnv(client, TASK)
                await env.reset(options={"checkpoint": 11})
                with self.assertRaises(RbxError) as cm:
                    await env.step({"name": "shell", "arguments": {"cmd": "ls"}})
                self.assertEqual((cm.exception.status, cm.exception.code), (400, "bad_tool_call"))
                self.assertEqual((await env.evaluate())["reward"], 1)  # k = 11: the work is done
                with self.assertRaises(RbxError) as cm:
                    await env.step({"name": "shell", "arguments": {"command": "ls"}})
                self.assertEqual(cm.exception.code, "episode_finished")
                await env.close()  # idempotent after evaluate
                # A request slower than the timeout: asyncio.TimeoutError, and
                # the client goes on (the timed-out connection is dropped).
                # Only the step is timed that short: a reset replays 11 steps
                # and may take longer than 0.5 s on a loaded machine.
                slow = AsyncClient(self.server.url, timeout=60)
                env = AsyncEnv(slow, TASK)
                await env.reset(options={"checkpoint": 11})
                slow.timeout = 0.5
                with self.assertRaises(asyncio.TimeoutError):
                    await env.step({"name": "shell", "arguments": {"command": "sleep 2"}})
                # The server saw the request cancelled under the step: the
                # episode is failed (its sandbox removed); the client goes on.
                slow.timeout = 60
                with self.assertRaises(RbxError) as cm:
                    await env.step({"name": "shell", "arguments": {"command": "./run.sh"}})
                self.assertEqual((cm.exception.code, cm.exception.details.get("state")), ("episode_finished", "failed"))
                await env.close()
                await env.reset(options={"checkpoint": 11})
                obs, *_ = await env.step({"name": "shell", "arguments": {"command": "./run.sh"}})
                self.assertEqual(obs["output"], "total=14024\n")
                await env.close()
                await slow.aclose()
                self.assertEqual((await client.episodes(state="open"))["episodes"], [])

        run(main())

    def test_group_fork_evidence_listing(self):
        async def main():
            async with AsyncClient(self.server.url) as client:
                envs = await async_reset_group(client, TASK, 3, checkpoint=5)
                self.assertEqual({e.info["k"] for e in envs}, {5})
                self.assertEqual(len({e.episode_id for e in envs}), 3)
                await asyncio.gather(*(e.close() for e in envs))
                # group_key: members resetting one by one at auto share k.
                a, b = AsyncEnv(client, TASK), AsyncEnv(client, TASK)
                _, ia = await a.reset(options={"group_key": "g-1"})
                _, ib = await b.reset(options={"group_key": "g-1"})
                self.assertEqual(ia["k"], ib["k"])
                await a.close()
                await b.close()
                env = AsyncEnv(client, TASK)
                await env.reset(options={"checkpoint": 4})
                for i, call, tokens in reference_calls(self.ref, 4):
                    await env.step(WRONG if i == 7 else call, tokens=tokens)
                self.assertFalse((await env.evaluate())["success"])
                fork = await env.fork(7)
                self.assertEqual((fork.info["parent"], fork.info["fork_t"]), (env.episode_id, 7))
                for _, call, tokens in reference_calls(self.ref, 7):
                    await fork.step(call, tokens=tokens, intervened=True)
                ev = await fork.evidence(verifier=True)
                self.assertTrue(ev["verifier"]["passed"])
                self.assertTrue((await fork.evaluate())["success"])
                self.assertEqual(len((await fork.export())["steps"]), 12)
                self.assertEqual([t["id"] for t in await client.tasks()], ["diverges", TASK])
                self.assertEqual([t["id"] async for t in client.iter_tasks(limit=1)], ["diverges", TASK])
                self.assertEqual((await client.curriculum(TASK))["tasks"][0]["task"], TASK)

        run(main())


class FakeHTTP:
    """An asyncio HTTP/1.1 server that answers each request with the next
    scripted answer, then (close_after) closes the connection without
    saying so, as a server whose idle timeout passed does."""

    def __init__(self, answers, close_after=False):
        self.answers, self.close_after, self.requests = list(answers), close_after, []

    async def handle(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                hdrs = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
                body = await reader.readexactly(int(hdrs.get("Content-Length", 0)))
                self.requests.append((lines[0], hdrs, body))
                writer.write(self.answers.pop(0))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    async def __aenter__(self):
        self.srv = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = "http://127.0.0.1:%d/prefix" % self.srv.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.srv.close()
        await self.srv.wait_closed()


def answer(status, body, chunked=False, extra=""):
    raw = json.dumps(body).encode()
    if chunked:
        mid = len(raw) // 2
        payload = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in (raw[:mid], raw[mid:])) + b"0\r\nX-T: 1\r\n\r\n"
        return b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n%s\r\n%s" % (
            status, extra.encode(), payload)
    return b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (
        status, len(raw), extra.encode(), raw)


class HTTPDetailsTest(unittest.TestCase):
    def test_keepalive_chunked_token_errors(self):
        async def main():
            answers = [answer(200, {"a": 1}), answer(200, {"b": [2] * 3000}, chunked=True),
                       answer(429, {"error": {"code": "too_many_episodes", "message": "full", "retry_after": 1}}),
                       answer(422, {"error": {"code": "reset_failed", "message": "diverged", "step": 3}}),
                       answer(502, {"not": "rbx"}), answer(200, {"c": 3}, extra="Connection: close\r\n")]
            async with FakeHTTP(answers) as fake, AsyncClient(fake.url, token="tok") as c:
                self.assertEqual(await c.call("GET", "/v1/x"), {"a": 1})
                self.assertEqual(await c.call("POST", "/v1/y", {"q": 1}), {"b": [2] * 3000})
                with self.assertRaises(RbxError) as cm:
                    await c.call("POST", "/v1/reset", {})
                self.assertEqual((cm.exception.status, cm.exception.details["retry_after"]), (429, 1))
                with self.assertRaises(ResetFailed) as cm:
                    await c.call("POST", "/v1/reset", {})
                self.assertEqual(cm.exception.details["step"], 3)
                with self.assertRaises(RbxError) as cm:
                    await c.call("GET", "/v1/z")
                self.assertEqual((cm.exception.status, cm.exception.code), (502, "http_502"))
                self.assertEqual(await c.call("GET", "/v1/z"), {"c": 3})
                self.assertEqual(c.stats["connections_opened"], 1)  # one kept-alive connection for all six
                line, hdrs, body = fake.requests[1]
                self.assertEqual(line, "POST /prefix/v1/y HTTP/1.1")
                self.assertEqual((hdrs["Authorization"], json.loads(body)), ("Bearer tok", {"q": 1}))
                self.assertEqual(c._idle[c._key()], [])  # "Connection: close" was honoured

        run(main())

    def test_stale_connection_retried_once(self):
        async def main():
            async with FakeHTTP([answer(200, {"n": i}) for i in range(3)], close_after=True) as fake:
                async with AsyncClient(fake.url) as c:
                    self.assertEqual(await c.call("GET", "/a"), {"n": 0})
                    await asyncio.sleep(0.05)  # the server has closed the kept-alive connection
                    self.assertEqual(await c.call("GET", "/b"), {"n": 1})
                    self.assertEqual(c.stats["connections_opened"], 2)
                    self.assertLessEqual(c.stats["retries"], 1)
        run(main())

    def test_bad_urls_and_refused(self):
        with self.assertRaises(ValueError):
            AsyncClient("ftp://x")
        with self.assertRaises(ValueError):
            AsyncClient("http://x", max_concurrency=0)

        async def refused():
            async with AsyncClient("http://127.0.0.1:1", timeout=5) as c:
                await c.call("GET", "/healthz")
        with self.assertRaises(OSError):
            run(refused())


class AsyncSecurityTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("openssl"), "openssl makes the test certificate")
    def test_https_token(self):
        srv, cert = tls_server(self, "rbx-aio-tls-")
        try:
            self.assertTrue(srv.url.startswith("https://"), srv.url)

            async def main():
                async with AsyncClient(srv.url, token="s3cret") as c:
                    with self.assertRaises(ssl.SSLCertVerificationError):
                        await c.tasks()
                async with AsyncClient(srv.url, cafile=cert) as c:
                    with self.assertRaises(RbxError) as cm:
                        await c.tasks()
                    self.assertEqual((cm.exception.status, cm.exception.code), (401, "unauthorized"))
                env = AsyncEnv(srv.url, TASK, token="s3cret", cafile=cert)  # owns its client
                await env.reset(options={"checkpoint": 11})
                obs, *_ = await env.step({"name": "shell", "arguments": {"command": "./run.sh"}})
                self.assertEqual(obs["output"], "total=14024\n")
                _, reward, terminated, _, info = await env.step(None)
                self.assertEqual((reward, terminated, info["verdict"]["success"]), (1.0, True, True))
                await env.close()
                self.assertTrue(env.client._closed)
            run(main())
        finally:
            code, err = srv.stop()
        self.assertEqual(code, 0, err)


if __name__ == "__main__":
    unittest.main()
