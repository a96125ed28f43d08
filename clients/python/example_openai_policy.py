#!/usr/bin/env python3
"""Run a policy served by an OpenAI-compatible endpoint (vLLM, SGLang,
OpenAI) against `rbx serve`, Gymnasium style, and print each episode's
reward. Standard library only.

    rbx serve --tasks examples/ &
    python3 clients/python/example_openai_policy.py --url http://127.0.0.1:8700 \\
        --task run-sh-path --base-url http://127.0.0.1:8000/v1 --model qwen --episodes 4

--task defaults to the server's first task, --base-url to $OPENAI_BASE_URL,
--model to $OPENAI_MODEL or the endpoint's first model (GET /models).

Each episode starts where the curriculum says (--checkpoint auto) or at
k; the model gets the prefix as chat messages and rbx's tools, and each of
its tool calls is one env.step. The episode ends when the model answers
without a tool call (env.step(None): the verifier runs), when the env
terminates or truncates it, or after --max-steps. The key, if any, is
read from the environment variable --api-key-env (default OPENAI_API_KEY).
"""

import argparse
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rbx_client import Client, Env, RbxError  # noqa: E402


class ChatPolicy:
    """A chat-completions endpoint as a policy: messages in, the
    assistant's message (maybe with tool calls) out."""

    def __init__(self, base_url, model, api_key=None, temperature=0.7, timeout=300.0):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.temperature, self.timeout = model, api_key, temperature, timeout

    def __call__(self, messages, tools):
        body = {"model": self.model, "messages": messages, "tools": tools, "tool_choice": "auto",
                "temperature": self.temperature}
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), method="POST")
        req.add_header("Content-Type", "application/json")
        if self.api_key:
            req.add_header("Authorization", "Bearer " + self.api_key)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            doc = json.loads(resp.read())
        msg = doc["choices"][0]["message"]
        tokens = (doc.get("usage") or {}).get("completion_tokens")
        return msg, tokens


def run_episode(env, policy, checkpoint="auto", max_steps=30, seed=None, log=print):
    """One episode; returns (reward, verdict or None, model turns)."""
    messages, info = env.reset(seed=seed, options={"checkpoint": checkpoint})
    log("episode %s: k=%d of T=%d (%s)" % (info["episode"], info["k"], info["t"], info["purpose"]))
    messages = list(messages)
    for turn in range(max_steps):
        msg, tokens = policy(messages, info["tools"])
        calls = msg.get("tool_calls") or []
        messages.append({k: v for k, v in msg.items() if k in ("role", "content", "tool_calls")})
        if not calls:
            _, reward, _, _, sinfo = env.step(None)  # the model is done: verify
            return reward, sinfo["verdict"], turn + 1
        for call in calls:
            try:
                obs, reward, terminated, truncated, sinfo = env.step(call, tokens=tokens)
            except RbxError as e:
                if e.code != "bad_tool_call":
                    raise
                # The model's mistake: it reads why and tries again.
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": "error: " + e.message})
                continue
            tokens = None  # counted once per turn
            messages.append(sinfo["message"])
            log("  step %d %s -> exit %s" % (sinfo["step"], call["function"]["name"] if "function" in call else call.get("name"),
                                           obs.get("exit_code")))
            if terminated or truncated:
                return reward, sinfo.get("verdict"), turn + 1
    _, reward, _, _, sinfo = env.step(None)  # out of steps: judge what was reached
    return reward, sinfo["verdict"], max_steps


def first_model(base_url, api_key):
    """The endpoint's first model (GET /models), or "default" when it
    lists none (a single-model server ignores the name)."""
    req = urllib.request.Request(base_url.rstrip("/") + "/models")
    if api_key:
        req.add_header("Authorization", "Bearer " + api_key)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())["data"][0]["id"]
    except (OSError, ValueError, KeyError, IndexError):
        return "default"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8700", help="the rbx serve URL")
    ap.add_argument("--task", help="the task id (default: the first the server serves)")
    ap.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"),
                    help="the OpenAI-compatible endpoint, up to /v1 (default $OPENAI_BASE_URL, else %(default)s)")
    ap.add_argument("--model", default=os.environ.get("OPENAI_MODEL"),
                    help="the model (default $OPENAI_MODEL, else the endpoint's first in GET /models)")
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY")
    ap.add_argument("--episodes", type=int, default=1)
    ap.add_argument("--checkpoint", default="auto", help='k, or "auto" (the curriculum decides)')
    ap.add_argument("--max-steps", type=int, default=30, help="model turns per episode")
    ap.add_argument("--token-file", help="the rbx server's bearer token")
    args = ap.parse_args(argv)
    token = open(args.token_file).read().strip() if args.token_file else None
    api_key = os.environ.get(args.api_key_env)
    model = args.model or first_model(args.base_url, api_key)
    policy = ChatPolicy(args.base_url, model, api_key)
    checkpoint = args.checkpoint if args.checkpoint == "auto" else int(args.checkpoint)
    rewards = []
    client = Client(args.url, token)
    task = args.task or client.tasks()[0]["id"]
    with Env(None, task, client=client) as env:
        for i in range(args.episodes):
            reward, verdict, turns = run_episode(env, policy, checkpoint, args.max_steps, seed=i)
            score = verdict["score"] if verdict else 0.0
            print("reward %.1f  turns %d  rubric score %.2f" % (reward, turns, score))
            rewards.append(reward)
    print("mean reward %.2f over %d episode(s)" % (sum(rewards) / len(rewards), len(rewards)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
