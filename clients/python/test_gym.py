"""Tests of the Gymnasium signatures, the group reset helper and the
OpenAI-policy example, against a real `rbx serve` (bin/rbx, local runtime).
Run: python3 -m unittest discover -s clients/python -v
"""

import http.server
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rbx_client import Client, Env, GroupReset, RbxError, reference_calls, reset_group  # noqa: E402
from test_rbx_client import ROOT, TASK, Server  # noqa: E402

MAX_EPISODES = 6


class GymTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rbx-gym-test-")
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(cls.dir, "tasks", TASK))
        with open(os.path.join(ROOT, "examples", TASK, "trajectory.json")) as f:
            cls.ref = json.load(f)
        cls.server = Server(os.path.join(cls.dir, "tasks"), os.path.join(cls.dir, "state.db"),
                            "--max-episodes", str(MAX_EPISODES))
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)

    def test_signatures_are_gymnasiums(self):
        reset = inspect.signature(Env.reset).parameters
        self.assertEqual(list(reset), ["self", "seed", "options"])
        for name in ("seed", "options"):
            self.assertEqual(reset[name].kind, inspect.Parameter.KEYWORD_ONLY, name)
            self.assertIsNone(reset[name].default, name)
        step = inspect.signature(Env.step).parameters
        self.assertEqual(list(step)[:2], ["self", "action"])
        self.assertTrue(all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in list(step.values())[2:]),
                        "rbx's extras are keyword-only: step(action) is Gymnasium's call")
        self.assertEqual(list(inspect.signature(Env.close).parameters), ["self"])
        env = Env(self.server.url, TASK)
        self.assertIs(env.unwrapped, env)
        self.assertEqual(env.metadata, {"render_modes": []})

    def test_reset_step_done(self):
        env = Env(self.server.url, TASK)
        out = env.reset(seed=3, options={"checkpoint": 10})
        self.assertIsInstance(out, tuple)
        self.assertEqual(len(out), 2)
        obs, info = out
        self.assertEqual(obs[0]["role"], "system")
        self.assertEqual((info["k"], info["t"], info["seed"]), (10, 12, 3))
        last = None
        for i, call, tokens in reference_calls(self.ref, 10):
            out = env.step(call, tokens=tokens)
            last = out[0]
            self.assertEqual(len(out), 5)
            obs, reward, terminated, truncated, sinfo = out
            self.assertEqual((obs["exit_code"], reward, terminated, truncated), (0, 0, False, False))
            self.assertEqual(sinfo["step"], i)
        obs, reward, terminated, truncated, sinfo = env.step(None)
        self.assertEqual((reward, terminated, truncated), (1.0, True, False))
        self.assertEqual(obs, last, "the last observation")
        self.assertTrue(sinfo["verdict"]["success"])
        self.assertIs(env.evaluate(), sinfo["verdict"], "evaluated once")
        env.close()
        env.close()

    def test_options(self):
        env = Env(self.server.url)
        _, info = env.reset(options={"task": TASK, "checkpoint": 11})
        self.assertEqual((env.task, info["k"]), (TASK, 11))
        env.close()
        with self.assertRaises(ValueError):
            env.reset(options={"checkpint": 3})
        with self.assertRaises(ValueError):
            Env(self.server.url).reset()
        with self.assertRaises(RbxError) as cm:
            env.reset(options={"checkpoint": 99})
        self.assertEqual(cm.exception.code, "bad_checkpoint")

    def test_termination_carries_the_reward(self):
        env = Env(self.server.url, TASK)
        env.reset(options={"checkpoint": 11})
        obs, reward, terminated, truncated, info = env.step({"name": "shell", "arguments": {"command": "exit 3"}})
        self.assertTrue(obs["session_lost"])
        self.assertEqual((terminated, truncated), (True, False))
        self.assertIn("verdict", info, "the shell is gone, the sandbox is not: the verifier judged")
        self.assertEqual(reward, float(info["verdict"]["reward"]))

    def test_reset_releases_the_previous_episode(self):
        with Env(self.server.url, TASK) as env:
            env.reset(options={"checkpoint": 11})
            first = env.episode_id
            env.reset(options={"checkpoint": 11})
            self.assertEqual(self.client.episode(first)["state"], "closed")
            second = env.episode_id
        self.assertEqual(self.client.episode(second)["state"], "closed", "leaving the with block closes it")

    def test_group_reset_from_many_threads(self):
        """8 threads reset 3 groups of 3 each against --max-episodes 6:
        refused groups wait their turn; every group shares one k."""
        refused = []
        lock = threading.Lock()

        class Counting(Client):
            def call(self, method, path, body=None):
                try:
                    return super().call(method, path, body)
                except RbxError as e:
                    if e.code == "too_many_episodes":
                        with lock:
                            refused.append(1)
                    raise

        groups = GroupReset(Counting(self.server.url), max_wait=120)
        ids, errors = [], []

        def worker(w):
            try:
                for g in range(3):
                    envs = groups(TASK, 3, checkpoint="auto" if g else 11 - w % 4, seed=w)
                    ks = {e.info["k"] for e in envs}
                    assert len(ks) == 1, ks
                    assert all(e.info["seed"] == w and e.messages for e in envs)
                    time.sleep(0.05)  # hold the sandboxes: the groups overlap
                    for e in envs:
                        e.close()
                    with lock:
                        ids.extend(e.episode_id for e in envs)
            except Exception as e:  # reported below, from the main thread
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        self.assertEqual(errors, [])
        self.assertEqual(len(ids), 72)
        self.assertEqual(len(set(ids)), 72)
        self.assertGreater(len(refused), 0, "the server's limit was reached and waited out")

        held = reset_group(self.client, TASK, MAX_EPISODES, checkpoint=11)
        try:
            with self.assertRaises(RbxError) as cm:
                GroupReset(self.client, max_wait=0)(TASK, 1, checkpoint=11)
            self.assertEqual(cm.exception.code, "too_many_episodes")
        finally:
            for e in held:
                e.close()
        with self.assertRaises(ValueError):
            reset_group(self.client, TASK, 0)


class FakeOpenAI(http.server.ThreadingHTTPServer):
    """A chat-completions endpoint that plays the reference: it answers
    with the tool call of the next reference step (counted from the tool
    results in the conversation), a malformed call first, and a plain
    answer when the trajectory is done."""

    def __init__(self, ref):
        self.calls = [call for _, call, _ in reference_calls(ref)]
        self.requests = []
        super().__init__(("127.0.0.1", 0), FakeHandler)
        self.url = "http://127.0.0.1:%d/v1" % self.server_address[1]


class FakeHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        msgs = body["messages"]
        errors = sum(1 for m in msgs if m["role"] == "tool" and m["content"].startswith("error:"))
        done = sum(1 for m in msgs if m["role"] == "tool") - errors
        if errors == 0:
            call = {"name": "rm", "arguments": {}}
        elif done < len(self.server.calls):
            call = self.server.calls[done]
        else:
            call = None
        msg = {"role": "assistant", "content": "done" if call is None else None}
        if call is not None:
            msg["tool_calls"] = [{"id": "call_%d_%d" % (done, errors), "type": "function",
                                  "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]
        out = json.dumps({"choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
                          "usage": {"completion_tokens": 7}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


class ExampleTest(unittest.TestCase):
    def test_openai_policy_example_end_to_end(self):
        d = tempfile.mkdtemp(prefix="rbx-example-test-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(d, "tasks", TASK))
        with open(os.path.join(ROOT, "examples", TASK, "trajectory.json")) as f:
            ref = json.load(f)
        server = Server(os.path.join(d, "tasks"), os.path.join(d, "s.db"))
        self.addCleanup(server.stop)
        fake = FakeOpenAI(ref)
        threading.Thread(target=fake.serve_forever, daemon=True).start()
        self.addCleanup(fake.server_close)
        self.addCleanup(fake.shutdown)
        out = subprocess.run([sys.executable, os.path.join(HERE, "example_openai_policy.py"), "--url", server.url,
                              "--task", TASK, "--base-url", fake.url, "--model", "fake", "--episodes", "2", "--checkpoint", "4"],
                             capture_output=True, text=True, timeout=120, env=dict(os.environ, OPENAI_API_KEY="k"))
        self.assertEqual(out.returncode, 0, out.stderr)
        # A malformed call, 8 reference calls, the final answer: 10 turns.
        self.assertEqual(out.stdout.count("reward 1.0  turns 10"), 2, out.stdout)
        self.assertIn("mean reward 1.00 over 2 episode(s)", out.stdout)
        self.assertIn("step 4 write_file -> exit 0", out.stdout)
        first = fake.requests[0]
        self.assertEqual(first["model"], "fake")
        self.assertEqual(first["tools"][0]["function"]["name"], "shell")
        self.assertEqual(sum(1 for m in first["messages"] if m["role"] == "tool"), 4, "the prefix to k=4")

        # Defaults: the server's first task, the endpoint's model ("default"
        # when it lists none), the curriculum's k.
        out = subprocess.run([sys.executable, os.path.join(HERE, "example_openai_policy.py"), "--url", server.url,
                              "--base-url", fake.url], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("reward 1.0", out.stdout)
        self.assertEqual(fake.requests[-1]["model"], "default")


if __name__ == "__main__":
    unittest.main()
