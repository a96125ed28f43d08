"""Tests of the trainer adapters rbx.trl (TRL's environment_factory) and
rbx.skyrl (SkyRL's BaseTextEnv) against a real `rbx serve` (bin/rbx, local
runtime). trl and skyrl_gym are not installed here: the tests drive the
adapters the way the frameworks do through minimal stand-ins — a loop that
calls reset(**row) and the tools like TRL's GRPOTrainer, and SkyRL's
BaseTextEnv / BaseTextEnvStepOutput (rbx.skyrl's fallback, and a fake
skyrl_gym module injected into sys.modules).
Run: python3 -m unittest discover -s clients/python -v
"""

import dataclasses
import importlib
import inspect
import json
import os
import shutil
import sys
import tempfile
import types
import unittest
from functools import partial

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rbx.skyrl  # noqa: E402
from rbx import Client, reference_calls  # noqa: E402
from rbx._tools import observation_text, parse_tool_call  # noqa: E402
from rbx.trl import RbxTerminalEnv, RbxToolEnv, reward_func  # noqa: E402
from test_rbx_client import ROOT, TASK, WRONG, Server  # noqa: E402


def trl_tools(env):
    """The tools TRL would expose: every public method but reset and get_reward."""
    return {name: m for name, m in inspect.getmembers(env, inspect.ismethod)
            if not name.startswith("_") and name not in ("reset", "get_reward")}


def out(o, name):
    """A field of a step output: SkyRL's is a TypedDict (a dict); the injected fake's a dataclass."""
    return o[name] if isinstance(o, dict) else getattr(o, name)


class AdapterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rbx-adapters-test-")
        shutil.copytree(os.path.join(ROOT, "examples", TASK), os.path.join(cls.dir, "tasks", TASK))
        with open(os.path.join(ROOT, "examples", TASK, "trajectory.json")) as f:
            cls.ref = json.load(f)
        cls.server = Server(os.path.join(cls.dir, "tasks"), os.path.join(cls.dir, "state.db"))
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)

    def tearDown(self):
        self.assertEqual(self.client.episodes(state="open")["episodes"], [], "an episode was left open")

    # TRL

    def test_trl_tools_are_the_public_methods(self):
        env = RbxToolEnv(self.server.url)
        tools = trl_tools(env)
        self.assertEqual(sorted(tools), ["edit_file", "read_file", "shell", "submit", "write_file"])
        for name, m in tools.items():  # TRL builds each tool's JSON schema from hints and the docstring
            sig = inspect.signature(m)
            self.assertTrue(all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name)
            self.assertIn("Returns:", m.__doc__, name)
            if sig.parameters:
                self.assertIn("Args:", m.__doc__, name)

    def test_trl_grpo_loop(self):
        """A stand-in of GRPOTrainer's loop: 4 slots from the factory, reused
        over 2 batches; each batch one GRPO group of identical rows (TRL
        passes the group's id as seed); reset(**row), tool calls, then the
        reward function over the environments."""
        group_size = 4
        factory = partial(RbxToolEnv, self.server.url)
        envs = [factory() for _ in range(group_size)]
        for batch, seed in enumerate((1001, 1002)):
            row = {"prompt": [{"role": "user", "content": "Make run.sh print the total."}], "task": TASK,
                   "seed": seed}
            prefixes = [env.reset(**row) for env in envs]
            ks = {env._env.info["k"] for env in envs}
            self.assertEqual(len(ks), 1, "one GRPO group, one k: %s" % ks)
            k = ks.pop()
            self.assertIn("checkpoint %d of" % k, prefixes[0]) if k else None
            for i, env in enumerate(envs):
                tools = trl_tools(env)
                for _, call, _ in reference_calls(self.ref, k):
                    result = tools[call["name"]](**call["arguments"])
                    self.assertIsInstance(result, str)
                if i == group_size - 1:
                    tools["shell"](**WRONG["arguments"])  # this rollout destroys its work ...
                elif i == 0:
                    self.assertIn("passed", tools["submit"]())  # ... this one submits; the others just stop
            self.assertEqual(reward_func(environments=envs), [1.0, 1.0, 1.0, 0.0], "batch %d" % batch)
            self.assertEqual([env.get_reward() for env in envs], [1.0, 1.0, 1.0, 0.0])  # stable

    def test_trl_explicit_checkpoint_and_errors(self):
        env = RbxToolEnv(self.server.url, task=TASK)
        text = env.reset(prompt="x", checkpoint=11)
        self.assertIn("checkpoint 11 of 12", text)
        self.assertIn("<tool_call>", text)
        self.assertIn("not found", env.edit_file("run.sh", "no such text", "y"))  # an observation, not a raise
        self.assertIn("invalid call", env._step("rm", {}))  # so is a call the server refuses (bad_tool_call)
        self.assertIn("exit code 127", env.shell("no-such-command"))
        self.assertEqual(env.shell("./run.sh"), "total=14024\n")
        self.assertIn("passed", env.submit())
        self.assertIn("ended", env.shell("ls"))
        self.assertEqual(env.get_reward(), 1.0)
        env.reset(checkpoint="11")  # the task from the constructor; a string k (a dataset column)
        self.assertEqual(env._env.info["k"], 11)
        self.assertEqual(env.get_reward(), 1.0)
        with self.assertRaises(ValueError):
            RbxToolEnv(self.server.url).reset(prompt="no task")

    # SkyRL

    def skyrl_env(self, **extras):
        return rbx.skyrl.RbxTextEnv({"url": self.server.url, "max_turns": 20}, dict({"task": TASK}, **extras))

    def test_skyrl_episode(self):
        prompt = [{"role": "system", "content": "You fix things."}, {"role": "user", "content": "Make run.sh."}]
        envs = [self.skyrl_env(group="g-skyrl") for _ in range(3)]
        inits = [e.init(prompt) for e in envs]
        self.assertEqual(len({m["k"] for _, m in inits}), 1, "one group, one k")
        conv, meta = inits[0]
        self.assertIn("<tool_call>", conv[0]["content"])  # the format, appended to the system prompt
        self.assertEqual(conv[1], prompt[1])
        self.assertEqual(len(conv), 3 if meta["k"] else 2)
        self.assertEqual(prompt[0]["content"], "You fix things.")  # the caller's prompt untouched
        k = meta["k"]
        for i, env in enumerate(envs):
            for _, call, _ in reference_calls(self.ref, k):
                text = "Next.\n<tool_call>%s</tool_call>" % json.dumps(call)
                o = env.step(text)
                self.assertEqual((out(o, "reward"), out(o, "done")), (0.0, False))
                self.assertTrue(out(o, "observations")[0]["content"].startswith("<tool_response>"))
            if i == 2:
                env.step(json.dumps(WRONG))  # a bare JSON call
            o = env.step("Done. <submit/>" if i == 0 else "I am done.")  # submit, or no tool call: the end
            self.assertTrue(out(o, "done"))
            self.assertEqual(out(o, "reward"), 0.0 if i == 2 else 1.0)
            self.assertEqual(out(o, "metadata")["ended"], "submit" if i == 0 else "no_tool_call")
            env.close()

    def test_skyrl_malformed_and_max_turns(self):
        env = rbx.skyrl.RbxTextEnv({"url": self.server.url, "max_turns": 3, "observation_role": "tool"},
                                   {"task": TASK, "checkpoint": "11"})
        conv, meta = env.init([{"role": "user", "content": "Finish."}])
        self.assertEqual(meta["k"], 11)
        self.assertEqual(conv[0]["role"], "system")
        o = env.step("<tool_call>{not json}</tool_call>")
        self.assertFalse(out(o, "done"))
        self.assertIn("invalid tool call", out(o, "observations")[0]["content"])
        self.assertEqual(out(o, "observations")[0]["role"], "tool")
        o = env.step('<tool_call>{"name": "rm", "arguments": {}}</tool_call>')
        self.assertFalse(out(o, "done"))
        self.assertIn("invalid tool call", out(o, "observations")[0]["content"])
        o = env.step('```json\n{"name": "shell", "arguments": {"command": "./run.sh"}}\n```')  # the third turn: the last
        self.assertTrue(out(o, "done"))
        self.assertEqual((out(o, "reward"), out(o, "metadata")["ended"]), (1.0, "max_turns"))
        self.assertIn("total=14024", out(o, "observations")[0]["content"])
        self.assertTrue(out(env.step("more?"), "done"))
        env.close()
        unopened = self.skyrl_env(checkpoint=5)
        unopened.init([])  # no prompt: rbx's own system prompt and instruction
        unopened.close()  # released without an outcome

    def test_skyrl_with_injected_framework(self):
        """With a skyrl_gym module present (a fake injected into
        sys.modules: the step output a dataclass), rbx.skyrl builds on it."""
        mod = types.ModuleType("skyrl_gym.envs.base_text_env")

        class BaseTextEnv:
            def __init__(self):
                self.turns, self.max_turns, self.base_called = 0, 1, True

        @dataclasses.dataclass
        class BaseTextEnvStepOutput:
            observations: list
            reward: float
            done: bool
            metadata: dict
            postprocessed_action: object = None

        mod.BaseTextEnv, mod.BaseTextEnvStepOutput = BaseTextEnv, BaseTextEnvStepOutput
        names = ["skyrl_gym", "skyrl_gym.envs", "skyrl_gym.envs.base_text_env"]
        saved = {n: sys.modules.get(n) for n in names}
        sys.modules.update({"skyrl_gym": types.ModuleType("skyrl_gym"),
                            "skyrl_gym.envs": types.ModuleType("skyrl_gym.envs"), names[2]: mod})
        try:
            importlib.reload(rbx.skyrl)
            self.assertTrue(rbx.skyrl.HAVE_SKYRL)
            env = self.skyrl_env(checkpoint=11)
            self.assertIsInstance(env, BaseTextEnv)
            self.assertTrue(env.base_called)
            env.init([{"role": "user", "content": "Finish."}])
            o = env.step("<submit/>")
            self.assertIsInstance(o, BaseTextEnvStepOutput)
            self.assertEqual((o.reward, o.done), (1.0, True))
        finally:
            for n, m in saved.items():
                if m is None:
                    sys.modules.pop(n, None)
                else:
                    sys.modules[n] = m
            importlib.reload(rbx.skyrl)
        self.assertFalse(rbx.skyrl.HAVE_SKYRL)


class ParseTest(unittest.TestCase):
    def test_parse_tool_call(self):
        shell = {"name": "shell", "arguments": {"command": "ls"}}
        cases = [
            ('<tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>', shell),
            ('think...\n<tool_call>\n{"name": "shell", "arguments": "{\\"command\\": \\"ls\\"}"}\n</tool_call> x', shell),
            ('{"name": "shell", "arguments": {"command": "ls"}}', shell),
            ('{"type": "function", "function": {"name": "shell", "arguments": "{\\"command\\": \\"ls\\"}"}}', shell),
            ('Run:\n```json\n{"name": "shell", "arguments": {"command": "ls"}}\n```', shell),
            ('{"name": "shell", "parameters": {"command": "ls"}}', shell),
            ("All done <submit/>", {"name": "submit", "arguments": {}}),
            ("<submit>", {"name": "submit", "arguments": {}}),
            ("no call here {not json}", None),
            ("", None),
        ]
        for text, want in cases:
            self.assertEqual(parse_tool_call(text), want, text)
        for bad in ("<tool_call>{nope</tool_call>", '<tool_call>{"arguments": {}}</tool_call>',
                    '<tool_call>["shell"]</tool_call>', '<tool_call>{"name": "x", "arguments": 3}</tool_call>'):
            with self.assertRaises(ValueError, msg=bad):
                parse_tool_call(bad)

    def test_observation_text(self):
        self.assertEqual(observation_text({"output": "hi", "exit_code": 0}), "hi\n")
        self.assertEqual(observation_text({"exit_code": 0}), "[no output]\n")
        self.assertEqual(observation_text({"output": "x\n", "exit_code": 124, "timed_out": True}),
                         "x\n[timed out; exit code 124]\n")
        self.assertIn("error: no such file", observation_text({"exit_code": 1, "error": "no such file"}))


if __name__ == "__main__":
    unittest.main()


class TerminalAdapterTest(unittest.TestCase):
    """RbxTerminalEnv against a real `rbx serve` of a task whose agent types
    into a terminal: its tools are keys and submit; keystrokes reach the
    terminal and their output comes back; the verifier passes."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rbx-terminal-test-")
        task = os.path.join(cls.dir, "tasks", "term")
        os.makedirs(task)
        with open(os.path.join(task, "task.yaml"), "w") as f:
            f.write('id: term\nimage: rbx/busybox:latest\nshell: terminal\nverify: {command: "grep -qx hi greet.txt"}\n')
        with open(os.path.join(task, "trajectory.json"), "w") as f:
            json.dump({"id": "term", "task": "task.yaml", "steps": [
                {"action": "keys", "keys": "echo hi > greet.txt\n", "duration": "1s",
                 "observation": {"output": "/workspace # echo hi > greet.txt\n/workspace #"}}]}, f)
        cls.server = Server(os.path.join(cls.dir, "tasks"), os.path.join(cls.dir, "state.db"))

    @classmethod
    def tearDownClass(cls):
        code, err = cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, "rbx serve exited %s: %s" % (code, err)

    def test_keys_tool(self):
        env = RbxTerminalEnv(self.server.url, task="term", checkpoint=0)
        self.assertEqual(sorted(trl_tools(env)), ["keys", "submit"])
        env.reset()
        shown = env.keys("echo $((6 * 7))\n", 2)
        self.assertIn("42", shown)
        env.keys("echo hi > greet.txt\n")
        self.assertEqual(env.get_reward(), 1.0)
        env.reset()
        self.assertIn("invalid call", env._step("shell", {"command": "ls"}), "a terminal task offers keys only")
        self.assertEqual(env.get_reward(), 0.0)
