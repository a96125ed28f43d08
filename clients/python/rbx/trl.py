"""rbx episodes as TRL environments: `GRPOTrainer(environment_factory=...)`.

TRL's GRPOTrainer, given an environment_factory, makes one environment
instance per rollout slot (reused across batches), calls
`reset(**dataset_row)` at the start of every rollout, exposes every other
public method of the instance as a tool to the model (its signature and
docstring are the tool's schema), and calls the tools the model asks for,
one after another. RbxToolEnv is such a class over the synchronous rbx
client (the calls of one instance are sequential, so a sync client is
enough; instances share nothing but the server):

    from functools import partial
    from trl import GRPOConfig, GRPOTrainer
    from rbx.trl import RbxToolEnv, reward_func

    # dataset rows: {"prompt": [...], "task": "run-sh-path"} (+ "checkpoint", "group"/"seed")
    trainer = GRPOTrainer(
        model="Qwen/Qwen3-0.6B",
        train_dataset=dataset,
        reward_funcs=reward_func,                       # [env.get_reward() for env in environments]
        args=GRPOConfig(num_generations=8, max_completion_length=4096),
        environment_factory=partial(RbxToolEnv, "http://127.0.0.1:8700", token=None),
    )

reset(**row) resets an rbx episode of row["task"] at row["checkpoint"]
("auto" by default: the curriculum picks k) with a group key, so that the
num_generations members of one GRPO group — identical rows, each resetting
in its own instance — start from the same k: the row's "group" column,
else its "seed" (TRL passes the group's id as seed), else a hash of the
row's reset arguments. It returns the replayed prefix as text (the actions
already taken up to k, with their live observations), which TRL appends
to the prompt. The tools are shell, write_file, read_file, edit_file and
submit; get_reward() returns the episode's reward (1.0 when the task's
verifier passed), running the verifier first when the model stopped
without calling submit; it is not a tool. RbxTerminalEnv is the same for
a task whose agent types into a terminal (`shell: terminal`): its tools
are keys (keystrokes, and how long to wait for the terminal) and submit.

trl is not a dependency of rbx-client (nor installable where rbx's tests
run): this module imports nothing from trl, and its test
(clients/python/test_adapters.py) drives it with a stand-in of TRL's
loop — the factory, reset(**row) per rollout, tool discovery from the
public methods, tool calls, get_reward — against a real `rbx serve`.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from ._common import RbxError
from ._tools import observation_text, prefix_text, row_group_key
from .client import Client, Env

__all__ = ["RbxTerminalEnv", "RbxToolEnv", "reward_func"]

_RESET_KEYS = ["task", "checkpoint", "prompt"]


class _Episode:
    """One rollout slot bound to an rbx server: reset, get_reward, submit
    and the stepping the tools share (RbxToolEnv, RbxTerminalEnv)."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, task: Optional[str] = None,
                 checkpoint: Any = "auto", cafile: Optional[str] = None, timeout: float = 600.0,
                 client: Optional[Client] = None) -> None:
        if client is None:
            client = Client(url or os.environ.get("RBX_URL") or "http://127.0.0.1:8700",
                            token if token is not None else os.environ.get("RBX_TOKEN"), timeout, cafile=cafile)
        self._client = client
        self._env = Env(None, task, client=self._client)
        self._default_task = task
        self._default_checkpoint = checkpoint
        self._open = False
        self.reward = 0.0
        self.verdict: Optional[Dict[str, Any]] = None

    # TRL's hooks (not tools).

    def reset(self, **row: Any) -> str:
        """Start the rollout's episode (TRL calls reset(**dataset_row))."""
        self._finish()
        task = row.get("task") or self._default_task
        if not task:
            raise ValueError('%s.reset: the row has no "task" and no default task was given' % type(self).__name__)
        checkpoint = row.get("checkpoint")
        checkpoint = self._default_checkpoint if checkpoint in (None, "") else checkpoint
        if isinstance(checkpoint, str) and checkpoint != "auto":
            checkpoint = int(checkpoint)
        options: Dict[str, Any] = {"task": task, "checkpoint": checkpoint}
        if checkpoint == "auto":  # an explicit k is already shared by the group
            options["group_key"] = row_group_key(row, _RESET_KEYS)
        self.reward, self.verdict = 0.0, None
        messages, info = self._env.reset(options=options)
        self._open = True
        return prefix_text(messages, info["k"], info["t"])

    def get_reward(self) -> float:
        """The episode's reward (the verifier's: 1.0 passed, 0.0 not); runs
        the verifier now when the model stopped without calling submit."""
        self._finish()
        return self.reward

    def submit(self) -> str:
        """Declare the task done: the task's verifier checks the sandbox and the episode ends.

        Returns:
            The verdict.
        """
        if not self._open:
            return "The episode has ended (reward %.1f)." % self.reward
        self._finish()
        return "Submitted: the verifier %s (reward %.1f)." % (
            "passed" if self.reward > 0 else "did not pass", self.reward)

    # Internals (private: TRL would make public methods tools).

    def _step(self, name: str, arguments: Dict[str, Any]) -> str:
        if not self._open:
            return "[the episode has ended; no more actions are carried out]"
        try:
            obs, reward, terminated, truncated, info = self._env.step({"name": name, "arguments": arguments})
        except RbxError as e:
            if e.code in ("bad_tool_call", "bad_request"):
                return "[invalid call: %s]" % e.message
            if e.code in ("episode_finished", "step_limit", "sandbox_lost"):
                self._open = False
                return "[the episode has ended: %s]" % e.code
            raise
        if "verdict" in info:  # the episode ended with this step (session lost, step limit)
            self._open, self.verdict, self.reward = False, info["verdict"], float(reward)
        elif truncated:  # the episode's time ran out: no verdict, reward 0
            self._open = False
        return observation_text(obs)

    def _finish(self) -> None:
        """Evaluate the open episode (its reward) and so release its sandbox."""
        if not self._open:
            return
        self._open = False
        try:
            self.verdict = self._env.evaluate()
            self.reward = float(self.verdict["reward"])
        except RbxError as e:
            if e.code not in ("episode_finished", "unknown_episode", "sandbox_lost"):
                raise
            self.reward = 0.0


class RbxToolEnv(_Episode):
    """One rollout slot of TRL's GRPOTrainer, bound to an rbx server.

    url and token default to $RBX_URL and $RBX_TOKEN (so the class itself
    can be the environment_factory); task is the default for rows without
    a "task" column, checkpoint the default for rows without "checkpoint".
    The public methods other than reset and get_reward are the tools."""

    # Tools.

    def shell(self, command: str, timeout: Optional[int] = None) -> str:
        """Run a shell command in the task's sandbox (a persistent session: cd and exports carry over).

        Args:
            command: The command line, run by /bin/sh in the working directory.
            timeout: Seconds before the command is stopped (capped by the task's step limit).

        Returns:
            The command's output, and its exit code when not 0.
        """
        args: Dict[str, Any] = {"command": command}
        if timeout is not None:
            args["timeout"] = int(timeout)
        return self._step("shell", args)

    def write_file(self, path: str, content: str, mode: Optional[str] = None) -> str:
        """Write a file in the sandbox, replacing it if it exists.

        Args:
            path: The file's path, relative to the working directory or absolute.
            content: The whole content of the file.
            mode: Octal permissions such as "0755" (default "0644").

        Returns:
            What happened.
        """
        args: Dict[str, Any] = {"path": path, "content": content}
        if mode is not None:
            args["mode"] = mode
        return self._step("write_file", args)

    def read_file(self, path: str) -> str:
        """Read a file of the sandbox.

        Args:
            path: The file's path, relative to the working directory or absolute.

        Returns:
            The file's content.
        """
        return self._step("read_file", {"path": path})

    def edit_file(self, path: str, old: str, new: str) -> str:
        """Replace one occurrence of a string in a file of the sandbox.

        Args:
            path: The file's path.
            old: The exact text to replace; it must occur in the file.
            new: The replacement text.

        Returns:
            What happened.
        """
        return self._step("edit_file", {"path": path, "old": old, "new": new})


class RbxTerminalEnv(_Episode):
    """One rollout slot for a task whose agent types into a terminal
    (`shell: terminal`, a Terminus-style policy): its one tool besides
    submit is keys. Constructed, reset and rewarded as RbxToolEnv."""

    # Tools.

    def keys(self, keystrokes: str, duration: float = 1.0) -> str:
        """Type into the task's terminal, as tmux send-keys does.

        Args:
            keystrokes: Text to type ("\\n" is Enter), or one key name alone such as C-c, C-d, Escape, Up.
            duration: Seconds to wait for the terminal's output (it returns sooner once output settles).

        Returns:
            What the terminal showed since: the new output, or the screen of a full-screen program.
        """
        return self._step("keys", {"keys": keystrokes, "duration": float(duration)})


def reward_func(environments: List[RbxToolEnv], **kwargs: Any) -> List[float]:
    """A GRPOTrainer reward function: each rollout's rbx reward (TRL passes
    the rollouts' environment instances as `environments`)."""
    return [env.get_reward() for env in environments]
