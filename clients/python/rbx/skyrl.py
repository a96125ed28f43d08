"""rbx episodes as SkyRL text environments (skyrl_gym's BaseTextEnv).

SkyRL's generator drives a BaseTextEnv per trajectory: `init(prompt) ->
(prompt, metadata)`, then `step(action: str) -> BaseTextEnvStepOutput
(observations, reward, done, metadata)` with the model's text for each
turn until done, then `close()`. RbxTextEnv resets an rbx episode in init
and executes the tool call in each action's text:

    # register once, in the process that builds the environments
    from skyrl_gym.envs import register
    register(id="rbx", entry_point="rbx.skyrl:RbxTextEnv")

    # dataset row (parquet): {"prompt": [...], "env_class": "rbx",
    #                         "task": "run-sh-path", "checkpoint": "auto", "group": "<row id>"}
    # config: environment.env_class=rbx  environment.skyrl_gym.rbx.url=http://127.0.0.1:8700
    #         environment.skyrl_gym.rbx.max_turns=30

env_config (a dict or an OmegaConf node): url ($RBX_URL), token
($RBX_TOKEN), cafile, timeout, max_turns (default 30), observation_role
("user"; "tool" for chat templates with a tool role), add_tool_prompt
(true: TOOL_FORMAT is appended to the system message). extras (the
dataset row's fields): task (required), checkpoint ("auto"), and the
group key of a GRPO group whose samples must start from one k: "group",
else "seed", else a hash of the row's task, checkpoint and prompt — all
samples of one prompt then share k.

The action format (documented to the model by TOOL_FORMAT):
    <tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>
(the Hermes / Qwen format; a bare JSON object {"name", "arguments"}, or
OpenAI's {"function": {...}}, alone or in a ```json fence, is accepted
too). <submit/> or a call named "submit" ends the episode: the task's
verifier runs and its reward (1.0 passed, 0.0 not) is the step's reward.
An action with no tool call also ends the episode that way; a malformed
call (bad JSON, unknown tool, bad argument) is answered with an error
observation and the episode goes on. Every other step's reward is 0; the
episode also ends (verifier's reward) at max_turns, when the server ends
it (step limit, the shell session gone) — and with reward 0 when the
task's episode_timeout passed.

skyrl_gym is not a dependency of rbx-client (nor installable where rbx's
tests run): when it is absent, this module defines minimal stand-ins of
BaseTextEnv and BaseTextEnvStepOutput with SkyRL's names and fields, and
the test (clients/python/test_adapters.py) drives RbxTextEnv through them
against a real `rbx serve`. With skyrl_gym installed the real classes
are used.
"""

from __future__ import annotations

import copy
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._common import RbxError
from ._tools import TOOL_FORMAT, head, observation_text, parse_tool_call, prefix_text, row_group_key
from .client import Client, Env

try:  # SkyRL's own classes when installed
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput  # type: ignore[import]
    HAVE_SKYRL = True
except ImportError:  # stand-ins with SkyRL's interface (see the module's docstring)
    HAVE_SKYRL = False

    class BaseTextEnv:  # type: ignore[no-redef]
        """Stand-in of skyrl_gym.envs.base_text_env.BaseTextEnv."""

        def __init__(self) -> None:
            self.turns = 0
            self.max_turns = 1

        def init(self, prompt: List[Dict[str, Any]]) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
            return prompt, {}

        def step(self, action: str) -> "BaseTextEnvStepOutput":
            raise NotImplementedError

        def close(self) -> None:
            pass

    def BaseTextEnvStepOutput(observations: List[Dict[str, str]], reward: float, done: bool,
                              metadata: Dict[str, Any], postprocessed_action: Optional[str] = None
                              ) -> Dict[str, Any]:
        """Stand-in of SkyRL's BaseTextEnvStepOutput (a TypedDict: a dict)."""
        return {"observations": observations, "reward": reward, "done": done, "metadata": metadata,
                "postprocessed_action": postprocessed_action}

__all__ = ["RbxTextEnv", "TOOL_FORMAT", "HAVE_SKYRL"]

ConversationType = List[Dict[str, Any]]


def _get(cfg: Any, key: str, default: Any) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, Mapping):
        v = cfg.get(key, default)
    else:
        v = getattr(cfg, key, default)
    return default if v is None else v


class RbxTextEnv(BaseTextEnv):  # type: ignore[misc]
    """One rbx episode as a SkyRL text environment (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: Optional[Dict[str, Any]] = None,
                 client: Optional[Client] = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        url = _get(env_config, "url", os.environ.get("RBX_URL", "http://127.0.0.1:8700"))
        token = _get(env_config, "token", os.environ.get("RBX_TOKEN"))
        self.client = client or Client(url, token, float(_get(env_config, "timeout", 600.0)),
                                       cafile=_get(env_config, "cafile", None))
        self.max_turns = int(_get(env_config, "max_turns", 30))
        self.observation_role = str(_get(env_config, "observation_role", "user"))
        self.add_tool_prompt = bool(_get(env_config, "add_tool_prompt", True))
        self.task = extras.get("task") or _get(env_config, "task", None)
        if not self.task:
            raise ValueError('RbxTextEnv: no task: give the dataset row a "task" field (extras)')
        self.checkpoint: Any = extras.get("checkpoint") or _get(env_config, "checkpoint", "auto")
        if isinstance(self.checkpoint, str) and self.checkpoint != "auto":
            self.checkpoint = int(self.checkpoint)
        self.extras = extras
        self.env = Env(None, self.task, client=self.client)
        self.turns = 0
        self.done = False
        self.reward = 0.0

    def init(self, prompt: ConversationType) -> Tuple[ConversationType, Dict[str, Any]]:
        """Reset the episode; the prompt continued by the replayed prefix."""
        options: Dict[str, Any] = {"checkpoint": self.checkpoint}
        if self.checkpoint == "auto":
            row = dict(self.extras, task=self.task, checkpoint=self.checkpoint, prompt=prompt)
            options["group_key"] = row_group_key(row, ["task", "checkpoint", "prompt"])
        messages, info = self.env.reset(options=options)
        self.turns, self.done, self.reward = 0, False, 0.0
        conv = copy.deepcopy(list(prompt)) if prompt else [
            {"role": m["role"], "content": m.get("content") or ""} for m in head(messages)]
        if self.add_tool_prompt:
            if conv and conv[0].get("role") == "system":
                conv[0]["content"] = (conv[0].get("content") or "") + "\n\n" + TOOL_FORMAT
            else:
                conv.insert(0, {"role": "system", "content": TOOL_FORMAT})
        if info["k"] > 0:
            conv.append({"role": "user", "content": prefix_text(messages, info["k"], info["t"])})
        meta = {"episode": info["episode"], "k": info["k"], "t": info["t"], "purpose": info.get("purpose"),
                "tools": info["tools"]}
        return conv, meta

    def _obs(self, text: str) -> List[Dict[str, str]]:
        return [{"role": self.observation_role, "content": "<tool_response>\n%s</tool_response>" % text}]

    def _end(self, observations: List[Dict[str, str]], why: str, verdict: Optional[Dict[str, Any]] = None
             ) -> Any:
        self.done = True
        if verdict is None:
            try:
                verdict = self.env.evaluate()
            except RbxError as e:
                if e.code not in ("episode_finished", "sandbox_lost", "unknown_episode"):
                    raise
                verdict = {"reward": 0.0, "success": False, "error": e.code}
        self.reward = float(verdict.get("reward", 0.0))
        return BaseTextEnvStepOutput(observations=observations, reward=self.reward, done=True,
                                     metadata={"episode": self.env.episode_id, "ended": why, "verdict": verdict,
                                               "turns": self.turns})

    def step(self, action: str) -> Any:
        """Execute the tool call in the model's text (see the module docstring)."""
        if self.done:
            return BaseTextEnvStepOutput(observations=[], reward=0.0, done=True, metadata={"ended": "already"})
        self.turns += 1
        try:
            call = parse_tool_call(action)
        except ValueError as e:
            if self.turns >= self.max_turns:
                return self._end([], "max_turns")
            return BaseTextEnvStepOutput(observations=self._obs("[invalid tool call: %s]\n" % e), reward=0.0,
                                         done=False, metadata={"error": str(e)})
        if call is None:
            return self._end([], "no_tool_call")
        if call["name"] == "submit":
            return self._end([], "submit")
        try:
            obs, reward, terminated, truncated, info = self.env.step(call)
        except RbxError as e:
            if e.code in ("bad_tool_call", "bad_request"):
                if self.turns >= self.max_turns:
                    return self._end([], "max_turns")
                return BaseTextEnvStepOutput(observations=self._obs("[invalid tool call: %s]\n" % e.message),
                                             reward=0.0, done=False, metadata={"error": e.code})
            if e.code in ("episode_finished", "step_limit", "sandbox_lost"):
                return self._end([], e.code)
            raise
        observations = self._obs(observation_text(obs))
        if "verdict" in info:
            return self._end(observations, "terminated" if terminated else "step_limit", info["verdict"])
        if truncated:
            return self._end(observations, "episode_timeout", {"reward": 0.0, "success": False})
        if self.turns >= self.max_turns:
            return self._end(observations, "max_turns")
        return BaseTextEnvStepOutput(observations=observations, reward=0.0, done=False,
                                     metadata={"step": info.get("step"), "exit_code": obs.get("exit_code")})

    def close(self) -> None:
        """Release the sandbox if the episode was not evaluated."""
        self.env.close()
