#!/usr/bin/env python3
"""Play a task's reference trajectory through `rbx serve` and print the reward.

    rbx serve --tasks examples/ &
    python3 clients/python/example_play_reference.py \
        --url http://127.0.0.1:8700 --trajectory examples/run-sh-path/trajectory.json

The episode starts at --checkpoint (default 0: the whole trajectory is
played as tool calls; "auto" lets the curriculum choose and plays the
reference suffix from there).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rbx_client import Env, ResetFailed, reference_calls  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8700")
    ap.add_argument("--trajectory", required=True, help="the reference trajectory JSON")
    ap.add_argument("--task", help="task id (default: the task of the trajectory's task file)")
    ap.add_argument("--checkpoint", default="0", help='k, or "auto"')
    ap.add_argument("--token-file")
    args = ap.parse_args(argv)
    with open(args.trajectory) as f:
        ref = json.load(f)
    token = open(args.token_file).read().strip() if args.token_file else None
    task = args.task or _task_id(args.trajectory, ref)
    env = Env(args.url, task, token=token)
    checkpoint = "auto" if args.checkpoint == "auto" else int(args.checkpoint)
    try:
        messages, info = env.reset(options={"checkpoint": checkpoint})
    except ResetFailed as e:
        print("reset failed at step %s: %s" % (e.details.get("step"), e.message), file=sys.stderr)
        return 1
    print("episode %s: k=%d of T=%d, %d prefix messages" % (info["episode"], info["k"], info["t"], len(messages)))
    for i, call, tokens in reference_calls(ref, info["k"]):
        obs, _, _, _, _ = env.step(call, tokens=tokens)
        print("step %2d %-10s exit %-3d %s" % (i, call["name"], obs["exit_code"], obs.get("output", "").strip()[:60].replace("\n", " | ")))
    result = env.evaluate()
    print("reward %.1f  success %s  score %.2f" % (result["reward"], result["success"], result["score"]))
    return 0 if result["success"] else 4


def _task_id(path, ref):
    """The task id: the trajectory's task, or the id in its task file."""
    task = ref["task"]
    candidate = os.path.join(os.path.dirname(path), task)
    if os.path.isfile(candidate):
        with open(candidate) as f:
            for line in f:
                if line.startswith("id:"):
                    return line.split(":", 1)[1].strip()
    return task


if __name__ == "__main__":
    sys.exit(main())
