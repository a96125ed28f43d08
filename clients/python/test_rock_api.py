"""The ROCK-compatible sandbox API of `rbx serve` (docs/rock.md), driven the
way ROLL drives ROCK: the exact requests ROLL's SandboxManagerV2 makes through
the ROCK SDK (rl-rock), with every response field the SDK's models read
checked. A real `rbx serve` (the built bin/rbx) on the Docker runtime; skipped
without an engine unless RBX_REQUIRE_DOCKER=1.
Run: python3 -m unittest discover -s clients/python -v
"""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from test_rbx_client import rbx_binary  # noqa: E402

IMAGE = "rbx/debian:bookworm"  # a plain image with bash, as ROCK sessions need
TASK = "run-sh-path-deb"       # examples/run-sh-path on that image
TOKEN = "rock-token"
STATES = {"pending", "running", "stopped", "archiving", "archived", "deleted"}
PHASES = {"waiting", "running", "success", "failed", "timeout"}
V1 = "/apis/envs/sandbox/v1"


def docker_ready():
    """Why the Docker tests cannot run here, or None."""
    if not shutil.which("docker"):
        return "no docker CLI"
    out = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True, text=True)
    if out.returncode != 0:
        return "no Docker engine or no %s image (make images): %s" % (IMAGE, out.stderr.strip()[:200])
    return None


class RockClient:
    """What rock.sdk.sandbox.client.Sandbox sends: the headers of
    _build_headers and JSON bodies (HttpUtils), multipart for /upload."""

    def __init__(self, base_url):
        self.url = base_url + V1
        self.headers = {"X-Cluster": "zb", "XRL-Authorization": "Bearer " + TOKEN,
                        "X-User-Id": "0000", "X-Experiment-Id": "test"}

    def request(self, method, path, body=None, ctype="application/json"):
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=dict(self.headers))
        if data is not None:
            req.add_header("Content-Type", ctype)
        with urllib.request.urlopen(req, timeout=300) as res:  # raises on any non-2xx, as the SDK does
            assert res.status == 200, res.status
            return json.loads(res.read())

    def post(self, path, body):
        return self.request("POST", path, body)

    def get(self, path, **query):
        return self.request("GET", path + "?" + urllib.parse.urlencode(query))

    def upload(self, sandbox_id, target_path, name, content):
        boundary = uuid.uuid4().hex
        parts = []
        for field, value in (("target_path", target_path), ("sandbox_id", sandbox_id)):
            parts.append(('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary, field, value)).encode())
        parts.append(('--%s\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n'
                      'Content-Type: application/octet-stream\r\n\r\n' % (boundary, name)).encode() + content + b"\r\n")
        parts.append(("--%s--\r\n" % boundary).encode())
        return self.request("POST", "/upload", b"".join(parts), "multipart/form-data; boundary=" + boundary)


class RockServer:
    """`rbx serve --runtime docker` with a token, on a free loopback port."""

    def __init__(self, tasks, state):
        token = os.path.join(os.path.dirname(state), "token")
        with open(token, "w") as f:
            f.write(TOKEN + "\n")
        self.proc = subprocess.Popen(
            [rbx_binary(), "serve", "--tasks", tasks, "--runtime", "docker", "--pull", "never", "--addr", "127.0.0.1:0",
             "--state", state, "--strategy", "search-learn", "--pool", "1", "--token-file", token],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("rbx serve did not start: %s %s" % (line, self.proc.stderr.read()))
        self.url = line.split()[-1]

    def native(self, path):
        req = urllib.request.Request(self.url + path, headers={"Authorization": "Bearer " + TOKEN})
        with urllib.request.urlopen(req, timeout=60) as res:
            return json.loads(res.read())

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=180)
        return self.proc.returncode, err


def make_tasks(d):
    """A tasks directory holding examples/run-sh-path on the bash image."""
    tasks = os.path.join(d, "tasks")
    shutil.copytree(os.path.join(ROOT, "examples", "run-sh-path"), os.path.join(tasks, TASK))
    with open(os.path.join(tasks, TASK, "task.yaml")) as f:
        yaml = f.read()
    yaml = yaml.replace("id: run-sh-path", "id: " + TASK).replace("image: rbx/busybox:latest", "image: " + IMAGE)
    with open(os.path.join(tasks, TASK, "task.yaml"), "w") as f:
        f.write(yaml)
    return tasks


def container_exists(cid):
    return subprocess.run(["docker", "inspect", cid], capture_output=True).returncode == 0


class RockAPITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = docker_ready()
        if why:
            if os.environ.get("RBX_REQUIRE_DOCKER") == "1":
                raise RuntimeError("RBX_REQUIRE_DOCKER=1 but " + why)
            raise unittest.SkipTest(why)
        cls.dir = tempfile.mkdtemp(prefix="rbx-rock-test-")
        tasks = make_tasks(cls.dir)
        with open(os.path.join(ROOT, "examples", "run-sh-path", "trajectory.json")) as f:
            cls.ref = json.load(f)
        cls.server = RockServer(tasks, os.path.join(cls.dir, "state.db"))
        cls.rock = RockClient(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        leftover = subprocess.run(["docker", "ps", "-aq", "--filter", "label=rbx.rock=true"],
                                  capture_output=True, text=True).stdout.split()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)
        assert "drained" in err, err
        assert not leftover, "ROCK sandboxes left after the server drained: %s" % leftover

    # --- the SDK's calls, each response checked against the SDK's models

    def check_envelope(self, r, status="Success"):
        self.assertEqual(set(r), {"status", "message", "error", "result"}, r)
        self.assertEqual(r["status"], status, r)
        if status == "Success":
            self.assertIsNone(r["error"], r)
        else:
            self.assertIsInstance(r["error"], str, r)
        return r["result"]

    def start(self, image, auto_clear_seconds=3600):
        # Sandbox.start(): the body, then get_status every 3 s (here 0.2 s)
        # until is_alive, failing on a failed or timed-out phase.
        r = self.rock.post("/start_async", {
            "image": image, "image_os": "linux",
            "auto_clear_time": int(math.ceil(auto_clear_seconds / 60)),
            "auto_clear_time_minutes": int(math.ceil(auto_clear_seconds / 60)),
            "startup_timeout": 600.0, "memory": "8g", "cpus": 2, "num_gpus": None, "accelerator_type": None,
            "registry_username": None, "registry_password": None, "use_kata_runtime": False, "limit_cpus": None,
            "sandbox_id": None, "auto_archive_seconds": None, "auto_delete_seconds": None, "disk": "50G"})
        res = self.check_envelope(r)
        sid = res["sandbox_id"]
        self.assertIsInstance(sid, str)
        self.assertTrue(res["host_ip"], "ROLL treats an empty host_ip as a failed start")
        self.assertIsInstance(res["host_name"], str)
        deadline = time.time() + 300
        while time.time() < deadline:
            st = self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=False))
            self.check_status(st, sid)
            if st["is_alive"]:
                return sid, st
            failed = [p for p in st["status"].values() if p["status"] in ("failed", "timeout")]
            self.assertFalse(failed, "start failed: %s" % st["status"])
            time.sleep(0.2)
        self.fail("sandbox %s not alive in time" % sid)

    def check_status(self, st, sid):
        # SandboxStatusResponse: every field typed as the model declares it.
        self.assertEqual(st["sandbox_id"], sid)
        self.assertIn(st["state"], STATES)
        self.assertIsInstance(st["is_alive"], bool)
        self.assertTrue(st["host_ip"])
        for name, phase in st["status"].items():
            self.assertIn(phase["status"], PHASES, name)
            self.assertIsInstance(phase["message"], str)
        for k, v in st["metadata"].items():
            self.assertIsInstance(k, str)
            self.assertIsInstance(v, str)
        for f in ("host_name", "image", "user_id", "experiment_id", "namespace", "memory", "disk", "create_time"):
            self.assertIsInstance(st[f], str, f)
        self.assertIsInstance(st["state_history"], list)
        self.assertEqual((st["user_id"], st["experiment_id"]), ("0000", "test"), "the identity headers are kept")

    def create_session(self, sid, session):
        # SandboxManagerV2.create_session: CreateBashSessionRequest(...).model_dump()
        r = self.rock.post("/create_session", {
            "sandbox_id": sid, "session_type": "bash", "session": session, "startup_source": ["/root/.bashrc"],
            "env_enable": True, "env": {"HOME": "/root", "IFLOW_ENV": "train", "DISABLE_SEND_PV": "1",
                                        "HF_ENDPOINT": "https://hf-mirror.com", "UV_INDEX_URL": "https://mirrors.aliyun.com/pypi/simple/"},
            "remote_user": None})
        res = self.check_envelope(r)
        self.assertEqual(res["session_type"], "bash")
        self.assertIsInstance(res["output"], str)

    def run_in_session(self, sid, session, command, check="silent", status="Success"):
        # Sandbox._run_in_session: BashAction with ROLL's check="silent".
        r = self.rock.post("/run_in_session", {"action_type": "bash", "session": session, "command": command,
                                               "sandbox_id": sid, "check": check, "timeout": None})
        res = self.check_envelope(r, status)
        if status == "Success":
            self.assertEqual(res["session_type"], "bash")
            self.assertIsInstance(res["output"], str)
            self.assertIsInstance(res["failure_reason"], str)
            self.assertIsInstance(res["expect_string"], str)
            if check == "ignore":
                self.assertIsNone(res["exit_code"])
            else:
                self.assertIsInstance(res["exit_code"], int)
        return res if status == "Success" else r["error"]

    def execute(self, sid, command):
        # SandboxManagerV2.run_in_session(execute_enable=True).
        r = self.rock.post("/execute", {"command": ["/bin/bash", "-c", command], "sandbox_id": sid,
                                        "timeout": 1200, "cwd": None, "env": None})
        res = self.check_envelope(r)
        self.assertIsInstance(res["stdout"], str)
        self.assertIsInstance(res["stderr"], str)
        self.assertIsInstance(res["exit_code"], int)
        return res

    def upload(self, sid, target, content):
        # Sandbox.upload_by_path: /upload, then OssClient.ensure_setup asks
        # /get_token, which must answer Failed (no OSS).
        res = self.check_envelope(self.rock.upload(sid, target, os.path.basename(target), content))
        self.assertEqual((res["success"], res["file_name"]), (True, os.path.basename(target)))
        self.assertIsInstance(res["message"], str)
        tok = self.rock.get("/get_token", account="primary")
        self.assertEqual(tok["status"], "Failed")

    def stop(self, sid):
        r = self.rock.post("/stop", {"sandbox_id": sid})
        self.assertEqual(self.check_envelope(r), "%s stopped" % sid)

    @staticmethod
    def extract_pid(output):
        # SandboxManagerV2._extract_pid
        lines = output.splitlines()
        if not lines:
            return ""
        m = re.match(r'\[\d+\]\s+(\d+)$', lines[-1].strip())
        return m.group(1) if m else ""

    # --- the tests

    def test_roll_sequence_plain_image(self):
        sid, st = self.start(IMAGE)
        self.assertEqual(st["state"], "running")
        container = st["metadata"]["rbx.sandbox"]
        self.assertTrue(container_exists(container))
        # ROLL: is_alive() is get_status again.
        self.assertTrue(self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=False))["is_alive"])
        self.create_session(sid, "agent")
        dup = self.rock.post("/create_session", {"sandbox_id": sid, "session": "agent"})
        self.check_envelope(dup, "Failed")

        env = self.run_in_session(sid, "agent", 'echo "$IFLOW_ENV $HOME"')
        self.assertEqual((env["output"], env["exit_code"]), ("train /root", 0))
        self.assertEqual(self.run_in_session(sid, "agent", "ls /nonexistent")["exit_code"], 2, "silent: the exit code")
        err = self.run_in_session(sid, "agent", "ls /nonexistent", check="raise", status="Failed")
        self.assertIn("failed with exit code 2", err)
        self.run_in_session(sid, "agent", "true", check="ignore")
        # A syntax error: Failed with bash's message, which ROLL looks for.
        err = self.run_in_session(sid, "agent", "echo (", status="Failed")
        self.assertIn("/bin/bash: line 1: ", err)

        # _upload_settings + _run_start_script / run_script_with_timeout.
        script = b"#!/bin/bash\nfor i in 1 2 3; do echo step $i; sleep 0.3; done\necho done >&2\n"
        self.upload(sid, "/tmp/script_1_2.sh", script)
        self.assertEqual(self.run_in_session(sid, "agent", "chmod +x /tmp/script_1_2.sh")["exit_code"], 0)
        out = self.run_in_session(sid, "agent", "nohup bash /tmp/script_1_2.sh < /dev/null > /tmp/script_1.sh.out 2>&1 &")
        self.assertEqual(out["exit_code"], 0)
        pid = self.extract_pid(out["output"])
        self.assertTrue(pid, "the job-control notice ends the output: %r" % out["output"])
        polls = 0
        while True:  # is_process_running: kill -0 until non-zero
            polls += 1
            if self.run_in_session(sid, "agent", "kill -0 %s" % pid)["exit_code"] != 0:
                break
            self.assertLess(polls, 100)
            time.sleep(0.2)
        self.assertGreater(polls, 1, "the job ran for a while")
        read = self.execute(sid, "head -c 10485760 /tmp/script_1.sh.out")  # read_content(execute_enable=True)
        self.assertEqual(read, {"stdout": "step 1\nstep 2\nstep 3\ndone\n", "stderr": "", "exit_code": 0})
        read = self.run_in_session(sid, "agent", "head -c 10485760 /tmp/script_1.sh.out")
        self.assertTrue(read["output"].endswith("step 3\ndone"), read["output"])

        # The SDK's own nohup (arun mode=nohup): PIDSTART..PIDEND, then
        # kill -0 with check=raise until the call fails.
        out = self.run_in_session(sid, "agent", "nohup sleep 1 < /dev/null > /tmp/x.out 2>&1 & echo PIDSTART${!}PIDEND;disown", check="raise")
        pid = re.search(r"PIDSTART(\d+)PIDEND", out["output"]).group(1)
        deadline = time.time() + 20
        while self.rock.post("/run_in_session", {"action_type": "bash", "session": "agent", "command": "kill -0 " + pid,
                                                 "sandbox_id": sid, "check": "raise", "timeout": None})["status"] == "Success":
            self.assertLess(time.time(), deadline)
            time.sleep(0.2)

        ex = self.execute(sid, "echo out; echo err >&2; exit 3")
        self.assertEqual(ex, {"stdout": "out\n", "stderr": "err\n", "exit_code": 3})

        # Sandbox.write_file / read_file.
        w = self.check_envelope(self.rock.post("/write_file", {"content": "héllo\nworld\n", "path": "/tests/notes/a.txt", "sandbox_id": sid}))
        self.assertEqual(w["success"], True)
        rd = self.rock.post("/read_file", {"path": "/tests/notes/a.txt", "encoding": None, "errors": None, "sandbox_id": sid})
        self.assertEqual(self.check_envelope(rd)["content"], "héllo\nworld\n")
        self.assertEqual(self.run_in_session(sid, "agent", "cat /tests/notes/a.txt")["output"], "héllo\nworld")

        # run_tests: a second session, its own cwd.
        self.create_session(sid, "test")
        self.run_in_session(sid, "test", "mkdir -p /tests && cd /tests")
        self.assertEqual(self.run_in_session(sid, "test", "pwd")["output"], "/tests")
        self.assertNotEqual(self.run_in_session(sid, "agent", "pwd")["output"], "/tests", "sessions are separate shells")
        unknown = self.rock.post("/run_in_session", {"action_type": "bash", "session": "nope", "command": "ls", "sandbox_id": sid, "check": "silent"})
        self.check_envelope(unknown, "Failed")

        closed = self.check_envelope(self.rock.post("/close_session", {"sandbox_id": sid, "session_type": "bash", "session": "test"}))
        self.assertEqual(closed, {"session_type": "bash"})

        self.stop(sid)
        self.assertFalse(container_exists(container), "no container remains after stop")
        self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=False), "Failed")
        st = self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=True))
        self.assertEqual((st["state"], st["is_alive"]), ("stopped", False))

    def test_missing_image_fails_clearly(self):
        r = self.rock.post("/start_async", {"image": "rbx/not-here:never", "memory": "1g", "cpus": 1})
        sid = self.check_envelope(r)["sandbox_id"]
        deadline = time.time() + 60
        while time.time() < deadline:
            st = self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=False))
            failed = [p["message"] for p in st["status"].values() if p["status"] == "failed"]
            if failed:
                self.assertIn("rbx/not-here:never", failed[0])
                self.assertFalse(st["is_alive"])
                return
            time.sleep(0.2)
        self.fail("no failed phase for a missing image")

    def test_rbx_image_outcome_reaches_curriculum(self):
        sid, st = self.start("rbx://%s@auto" % TASK)
        meta = st["metadata"]
        self.assertEqual((meta["rbx.task"], meta["rbx.feeds_curriculum"]), (TASK, "true"))
        episode, k = meta["rbx.episode"], int(meta["rbx.k"])
        self.assertIn(meta["rbx.purpose"], ("rollback", "probe", "learn", "search", "sequential", "heuristic", "parallel"), meta)
        prefix = self.check_envelope(self.rock.get("/rbx/prefix", sandbox_id=sid))
        self.assertIsInstance(prefix["messages"], list)
        self.assertEqual(self.server.native("/v1/episodes/" + episode)["state"], "open")

        # The policy, through ROCK: the right script at the root.
        self.create_session(sid, "agent")
        step = self.ref["steps"][4]
        edit = self.ref["steps"][6]
        content = step["content"].replace(edit["old"], edit["new"])
        self.check_envelope(self.rock.post("/write_file", {"content": content, "path": "run.sh", "sandbox_id": sid}))
        self.assertEqual(self.run_in_session(sid, "agent", "chmod +x run.sh && ./run.sh")["output"], "total=14024")
        self.stop(sid)

        st = self.check_envelope(self.rock.get("/get_status", sandbox_id=sid, include_all_states=True))
        self.assertEqual((st["metadata"]["rbx.success"], st["metadata"]["rbx.observed"]), ("true", "true"))
        rec = self.server.native("/v1/episodes/" + episode)
        self.assertEqual((rec["state"], rec["outcome"]["success"]), ("evaluated", True))
        cur = self.server.native("/v1/curriculum?task=" + TASK)
        events = [e for e in cur["tasks"][0]["history"] if e["episode"] == episode]
        self.assertEqual(len(events), 1, "the curriculum recorded the ROCK episode")
        self.assertEqual((events[0]["k"], events[0]["success"]), (k, True))


class RockCleanupTest(unittest.TestCase):
    """No container remains after the TTL, or after the server is killed
    and restarted."""

    def setUp(self):
        why = docker_ready()
        if why:
            if os.environ.get("RBX_REQUIRE_DOCKER") == "1":
                self.fail("RBX_REQUIRE_DOCKER=1 but " + why)
            self.skipTest(why)
        self.dir = tempfile.mkdtemp(prefix="rbx-rock-cleanup-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.tasks = make_tasks(self.dir)
        self.state = os.path.join(self.dir, "state.db")

    def start(self, rock, ttl_minutes):
        r = rock.post("/start_async", {"image": IMAGE, "auto_clear_time_minutes": ttl_minutes, "memory": "1g", "cpus": 1})
        sid = r["result"]["sandbox_id"]
        deadline = time.time() + 120
        while time.time() < deadline:
            st = rock.get("/get_status", sandbox_id=sid, include_all_states=False)["result"]
            if st["is_alive"]:
                return sid, st["metadata"]["rbx.sandbox"]
            time.sleep(0.2)
        self.fail("not alive")

    def test_ttl_expiry(self):
        srv = RockServer(self.tasks, self.state)
        self.addCleanup(srv.stop)
        rock = RockClient(srv.url)
        sid, cid = self.start(rock, 0.05)  # 3 s idle
        self.assertTrue(container_exists(cid))
        deadline = time.time() + 60
        while container_exists(cid):
            self.assertLess(time.time(), deadline, "the idle sandbox was not removed")
            time.sleep(0.5)
        st = rock.get("/get_status", sandbox_id=sid, include_all_states=True)["result"]
        self.assertEqual(st["state"], "stopped")
        self.assertIn("auto clear", st["state_history"][-1]["event"])

    def test_server_killed_and_restarted(self):
        srv = RockServer(self.tasks, self.state)
        rock = RockClient(srv.url)
        _, cid = self.start(rock, 60)
        srv.proc.kill()  # no drain
        srv.proc.communicate(timeout=30)
        self.assertTrue(container_exists(cid), "a killed server leaves its sandbox behind")
        again = RockServer(self.tasks, self.state)  # reaps the dead server's sandboxes before listening
        self.addCleanup(again.stop)
        self.assertFalse(container_exists(cid), "the restarted server removed the dead one's sandbox")


if __name__ == "__main__":
    unittest.main()
