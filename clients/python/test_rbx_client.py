"""Tests of rbx_client against a real `rbx serve` (the built bin/rbx, local
runtime) on a loopback port. Run: python3 -m unittest discover -s clients/python -v
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from rbx_client import Client, Env, RbxError, ResetFailed, reference_calls, reset_group  # noqa: E402

TASK = "run-sh-path"
DIVERGE_TASK = """id: diverges
instruction: say bye
image: rbx/busybox:latest
verify: {command: "true"}
"""
DIVERGE_TRAJ = {"id": "diverges-ref", "task": "task.yaml", "steps": [
    {"action": "shell", "command": "echo hi", "observation": {"output": "bye\\n", "exit_code": 0}},
    {"action": "shell", "command": "true"}]}
# A wrong action: it destroys the work, so the episode cannot succeed.
WRONG = {"name": "shell", "arguments": {"command": "rm -rf scripts run.sh"}}


def rbx_binary():
    path = os.environ.get("RBX_BIN") or os.path.join(ROOT, "bin", "rbx")
    if not os.path.exists(path):
        subprocess.run(["go", "build", "-o", path, "./cmd/rbx"], cwd=ROOT, check=True)
    return path


class Server:
    """A `rbx serve` child process on 127.0.0.1 with a free port."""

    def __init__(self, tasks, state, *extra):
        self.proc = subprocess.Popen(
            [rbx_binary(), "serve", "--tasks", tasks, "--runtime", "local", "--addr", "127.0.0.1:0",
             "--state", state, "--strategy", "search-learn", "--pool", "4"] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("rbx serve did not start: %s %s" % (line, self.proc.stderr.read()))
        self.url = line.split()[-1]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=120)
        return self.proc.returncode, err



def tls_server(test, prefix):
    """A `rbx serve` of TASK over HTTPS (a self-signed certificate for
    127.0.0.1, made by openssl) with the token "s3cret"; the directory is
    removed at the test's cleanup. Returns the server and the certificate's
    path (the client's cafile)."""
    d = tempfile.mkdtemp(prefix=prefix)
    test.addCleanup(shutil.rmtree, d, True)
    shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(d, "tasks", TASK))
    cert, key, token = (os.path.join(d, n) for n in ("cert.pem", "key.pem", "token"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    with open(token, "w") as f:
        f.write("s3cret\n")
    srv = Server(os.path.join(d, "tasks"), os.path.join(d, "s.db"), "--token-file", token,
                 "--tls-cert", cert, "--tls-key", key)
    return srv, cert


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rbx-client-test-")
        tasks = os.path.join(cls.dir, "tasks")
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(tasks, TASK))
        os.makedirs(os.path.join(tasks, "diverges"))
        with open(os.path.join(tasks, "diverges", "task.yaml"), "w") as f:
            f.write(DIVERGE_TASK)
        with open(os.path.join(tasks, "diverges", "trajectory.json"), "w") as f:
            json.dump(DIVERGE_TRAJ, f)
        with open(os.path.join(ROOT, "examples", TASK, "trajectory.json")) as f:
            cls.ref = json.load(f)
        cls.tasks = tasks
        cls.server = Server(tasks, os.path.join(cls.dir, "state.db"))
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)
        assert "drained" in err, err

    def play(self, env, start, wrong_at=None, intervened_from=None):
        for i, call, tokens in reference_calls(self.ref, start):
            if i == wrong_at:
                call = WRONG
            env.step(call, tokens=tokens, intervened=intervened_from is not None and i >= intervened_from)

    def test_task_listing_pages(self):
        page = self.client.task_page(limit=1)
        self.assertEqual((len(page["tasks"]), page["total"]), (1, 2))
        self.assertEqual(page["tasks"][0]["id"], "diverges")  # ids sorted
        self.assertTrue(page["next_cursor"])
        last = self.client.task_page(limit=1, cursor=page["next_cursor"])
        self.assertEqual(([t["id"] for t in last["tasks"]], last["next_cursor"]), ([TASK], ""))
        self.assertEqual([t["id"] for t in self.client.iter_tasks(limit=1)], ["diverges", TASK])
        self.assertEqual([t["id"] for t in self.client.tasks(q="run-sh")], [TASK])
        self.assertEqual(sum(page["phases"].values()), 2)
        cur = self.client.curriculum(limit=1, q="run-sh")
        self.assertEqual(([t["task"] for t in cur["tasks"]], cur["total"]), ([TASK], 1))
        with self.assertRaises(RbxError) as cm:
            self.client.task_page(phase="mastered")
        self.assertEqual((cm.exception.status, cm.exception.code), (400, "bad_request"))
        self.assertEqual(cm.exception.details["parameter"], "phase")
        self.assertIn("solved", cm.exception.details["allowed"])

    def test_reset_step_evaluate(self):
        env = Env(self.server.url, TASK)
        messages, info = env.reset(options={"checkpoint": 9})
        self.assertEqual((info["k"], info["t"]), (9, 12))
        self.assertEqual(messages[0]["role"], "system")
        self.assertEqual([t["function"]["name"] for t in info["tools"]][:2], ["shell", "write_file"])
        obs, reward, terminated, truncated, sinfo = env.step(
            {"name": "shell", "arguments": json.dumps({"command": "mv scripts/run.sh run.sh && chmod +x run.sh"})})
        self.assertEqual((obs["exit_code"], reward, terminated, truncated), (0, 0, False, False))
        self.assertEqual(sinfo["message"]["role"], "tool")
        obs, *_ = env.step({"function": {"name": "shell", "arguments": '{"command": "./run.sh"}'}})
        self.assertEqual(obs["output"], "total=14024\n")
        result = env.evaluate()
        self.assertTrue(result["success"])
        self.assertEqual(result["reward"], 1)
        self.assertEqual([r["id"] for r in result["rubric"]], ["script-written", "script-at-root"])
        with self.assertRaises(RbxError) as cm:
            env.step({"name": "shell", "arguments": {"command": "ls"}})
        self.assertEqual(cm.exception.code, "episode_finished")
        traj = env.export()
        self.assertEqual(len(traj["steps"]), 11)

    def test_group_reset_same_k(self):
        envs = reset_group(self.client, TASK, 3, checkpoint=5)
        self.assertEqual(len(envs), 3)
        self.assertEqual({e.info["k"] for e in envs}, {5})
        self.assertEqual(len({e.episode_id for e in envs}), 3)
        for e in envs:
            e.close()

    def test_errors(self):
        env = Env(self.server.url, TASK)
        env.reset(options={"checkpoint": 11})
        cases = [
            ({"name": "rm", "arguments": {}}, "bad_tool_call"),
            ({"name": "shell", "arguments": {"cmd": "ls"}}, "bad_tool_call"),
            ({"name": "shell", "arguments": "{not json"}, "bad_tool_call"),
        ]
        for call, code in cases:
            with self.assertRaises(RbxError) as cm:
                env.step(call)
            self.assertEqual(cm.exception.code, code)
            self.assertEqual(cm.exception.status, 400)
        env.close()
        with self.assertRaises(RbxError) as cm:
            Env(self.server.url, "no-such-task").reset()
        self.assertEqual(cm.exception.code, "unknown_task")
        with self.assertRaises(RbxError) as cm:
            self.client.episode("ep_" + "0" * 20)
        self.assertEqual(cm.exception.code, "unknown_episode")
        with self.assertRaises(RbxError) as cm:
            Env(self.server.url, TASK).reset(options={"checkpoint": 99})
        self.assertEqual(cm.exception.code, "bad_checkpoint")

    def test_reset_failed(self):
        with self.assertRaises(ResetFailed) as cm:
            Env(self.server.url, "diverges").reset(options={"checkpoint": 1})
        self.assertEqual(cm.exception.code, "reset_failed")
        self.assertEqual(cm.exception.details["step"], 0)
        self.assertFalse(cm.exception.details["retryable"])

    def test_fork_intervention(self):
        env = Env(self.server.url, TASK)
        env.reset(options={"checkpoint": 4})
        self.play(env, 4, wrong_at=7)
        self.assertFalse(env.evaluate()["success"])
        fork = env.fork(7)
        self.assertEqual((fork.info["parent"], fork.info["fork_t"], fork.info["k"]), (env.episode_id, 7, 4))
        self.play(fork, 7, intervened_from=7)
        result = fork.evaluate()
        self.assertTrue(result["success"])
        self.assertEqual(result["intervened"]["steps"], 5)
        self.assertAlmostEqual(result["intervened"]["share"], 5 / 8)
        self.assertTrue(result["shift_exceeded"])  # 5/8 > the default 0.5
        self.assertFalse(result["observed"])

    def test_evidence_leaves_episode_alone(self):
        env = Env(self.server.url, TASK)
        env.reset(options={"checkpoint": 4})
        self.play_until(env, 4, 9)
        ev = env.evidence(verifier=True)
        self.assertEqual((ev["at"], ev["k"]), (9, 4))
        self.assertAlmostEqual(ev["score"], 1 / 3)  # scripts/run.sh written, not at the root
        self.assertFalse(ev["verifier"]["passed"])
        self.assertEqual(ev["cost"]["steps_replayed"], 9)
        with self.assertRaises(RbxError) as cm:
            env.evidence()
        self.assertEqual((cm.exception.code, cm.exception.status), ("rate_limited", 429))
        obs, *_ = env.step({"name": "shell", "arguments": {"command": "ls -a"}})
        self.assertNotIn(".rbx-tests", obs["output"])  # the verifier ran elsewhere
        env.close()

    def play_until(self, env, start, stop):
        for i, call, tokens in reference_calls(self.ref, start):
            if i >= stop:
                return
            env.step(call, tokens=tokens)

    def test_example_script(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "example_play_reference.py"), "--url", self.server.url,
                              "--trajectory", os.path.join(ROOT, "examples", TASK, "trajectory.json")],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("reward 1.0", out.stdout)

    def test_curriculum_moves_to_start(self):
        """Search-Learn with a scripted learner: each reference step is
        played wrong with probability ERR until it is mastered (after M
        rewarded episodes that exercised it). The curriculum must move from
        the end of the trajectory to k = 0, and the state listing shows it."""
        rng = random.Random(7)
        err = float(os.environ.get("RBX_TEST_ERROR_RATE", "0.5"))
        m, T = int(os.environ.get("RBX_TEST_MASTERY", "6")), len(self.ref["steps"])
        rewarded = [0] * T
        ks = []
        for episode in range(2000):
            env = Env(self.server.url, TASK)
            _, info = env.reset()
            k = info["k"]
            failed = False
            for i, call, tokens in reference_calls(self.ref, k):
                if rewarded[i] < m and rng.random() < err:
                    env.step(WRONG)
                    failed = True
                    break
                env.step(call, tokens=tokens)
            result = env.evaluate()
            self.assertEqual(result["success"], not failed)
            if result["success"]:
                for i in range(k, T):
                    rewarded[i] += 1
            ks.append((k, info["purpose"]))
            state = self.client.curriculum(TASK)["tasks"][0]
            if state["solved"]:
                break
        self.assertTrue(state["solved"], "not solved after %d episodes: %s" % (len(ks), state))
        learn = [k for k, p in ks if p == "learn"]
        self.assertGreater(learn[0], T // 2, "learning starts near the end: %s" % learn)
        self.assertEqual(learn[-1], 0)
        self.assertEqual(learn, sorted(learn, reverse=True), "learning moves towards the start")
        self.assertEqual(state["history"][-1]["k"], 0)
        # Mastered under the default posterior rule: at least 4 successes
        # (--min-successes) in the window, whose rate is then at least θ.
        self.assertTrue(any(c["k"] == 0 and c["successes"] >= 4 and c["rate"] >= state["theta"]
                            for c in state["checkpoints"]), state["checkpoints"])
        print("\ncurriculum: error rate %.2f, mastery %d: solved after %d episodes; learn checkpoints %s"
              % (err, m, len(ks), sorted(set(learn), reverse=True)),
              file=sys.stderr)


class RefreshTest(unittest.TestCase):
    """--refresh-references: a shorter successful episode becomes version 2."""

    def test_shorter_episode_becomes_the_reference(self):
        d = tempfile.mkdtemp(prefix="rbx-client-refresh-")
        self.addCleanup(shutil.rmtree, d, True)
        tasks = os.path.join(d, "tasks")
        shutil.copytree(os.path.join(ROOT, "server", "testdata", "redundant"), os.path.join(tasks, "redundant"))
        server = Server(tasks, os.path.join(d, "state.db"), "--refresh-references", "--refresh-repeats", "2")
        self.addCleanup(server.stop)
        client = Client(server.url)
        env = Env(server.url, "redundant")
        _, info = env.reset(options={"checkpoint": 0})
        self.assertEqual(info["t"], 6)
        env.step({"name": "shell", "arguments": {"command": "echo done > out.txt"}})
        env.step({"name": "shell", "arguments": {"command": "cat out.txt"}})
        result = env.evaluate()
        self.assertTrue(result["reference_candidate"])
        deadline = time.time() + 60
        while client.references("redundant")["current"] != 2:
            self.assertLess(time.time(), deadline, client.references("redundant"))
            time.sleep(0.05)
        refs = client.references("redundant")
        self.assertEqual([v["t"] for v in refs["versions"]], [6, 2])
        self.assertEqual([e["result"] for e in refs["candidates"]], ["seen", "verified", "adopted"])
        self.assertEqual(len(client.reference("redundant", 1)["steps"]), 6)
        with self.assertRaises(RbxError) as cm:
            client.reference("redundant", 3)
        self.assertEqual(cm.exception.code, "unknown_version")
        _, info = env.reset()
        self.assertEqual(info["t"], 2)
        self.assertLess(info["k"], 2)


class SecurityTest(unittest.TestCase):
    def test_token_required_and_checked(self):
        d = tempfile.mkdtemp(prefix="rbx-client-sec-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(d, "tasks", TASK))
        out = subprocess.run([rbx_binary(), "serve", "--tasks", os.path.join(d, "tasks"), "--runtime", "local",
                              "--addr", "0.0.0.0:0", "--state", os.path.join(d, "s.db")], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("token", out.stderr)
        with open(os.path.join(d, "token"), "w") as f:
            f.write("s3cret\n")
        out = subprocess.run([rbx_binary(), "serve", "--tasks", os.path.join(d, "tasks"), "--runtime", "docker",
                              "--addr", "0.0.0.0:0", "--state", os.path.join(d, "s.db"), "--token-file", os.path.join(d, "token")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("plain HTTP", out.stderr)
        srv = Server(os.path.join(d, "tasks"), os.path.join(d, "s.db"), "--token-file", os.path.join(d, "token"))
        try:
            with self.assertRaises(RbxError) as cm:
                Client(srv.url).tasks()
            self.assertEqual((cm.exception.status, cm.exception.code), (401, "unauthorized"))
            self.assertEqual(Client(srv.url, token="s3cret").tasks()[0]["id"], TASK)
        finally:
            code, err = srv.stop()
        self.assertEqual(code, 0, err)

    @unittest.skipUnless(shutil.which("openssl"), "openssl makes the test certificate")
    def test_https_with_cafile(self):
        srv, cert = tls_server(self, "rbx-client-tls-")
        try:
            self.assertTrue(srv.url.startswith("https://"), srv.url)
            with self.assertRaises(urllib.error.URLError) as cm:
                Client(srv.url, token="s3cret").tasks()
            self.assertIn("CERTIFICATE_VERIFY_FAILED", str(cm.exception))
            self.assertEqual(Client(srv.url, token="s3cret", cafile=cert).tasks()[0]["id"], TASK)
            env = Env(srv.url, TASK, token="s3cret", cafile=cert)
            _, info = env.reset(options={"checkpoint": 11})
            obs, *_ = env.step({"name": "shell", "arguments": {"command": "./run.sh"}})
            self.assertEqual(obs["output"], "total=14024\n")
            self.assertTrue(env.evaluate()["success"])
        finally:
            code, err = srv.stop()
        self.assertEqual(code, 0, err)


if __name__ == "__main__":
    unittest.main()
