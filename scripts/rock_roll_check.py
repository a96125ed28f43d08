"""Drive `rbx serve` with ROLL's own SandboxManagerV2 and the real ROCK SDK
(rl-rock), as a ROLL agentic pipeline would. Needs both installed (pip install
rl-rock, ROLL on PYTHONPATH); the agent install (iflow-cli from npm) is
skipped, everything else is ROLL's code path: start_async and get_status
polling, create_session, the cleanup commands, run_script_with_timeout
(upload, chmod, nohup, "[1] PID", kill -0 polling, reading the log through
execute), and, with a task, run_tests (a second session, a tar upload, the
tests' nohup run), then stop. See docs/rock.md.

    rbx serve --tasks TASKS --token-file token.txt --addr 127.0.0.1:8080 &
    python3 scripts/rock_roll_check.py http://127.0.0.1:8080 TOKEN rbx/debian:bookworm
    python3 scripts/rock_roll_check.py http://127.0.0.1:8080 TOKEN rbx://TASK@auto TASK TESTS_DIR

TESTS_DIR holds TASK/run-tests.sh and TASK/tests/, as ROLL's test_files do.
"""
import asyncio
import logging
import sys

from roll.pipeline.agentic.env.rock.sandbox_manager_v2 import SandboxManagerV2


class Manager(SandboxManagerV2):
    def _install_agent(self, session_name):  # needs the Internet (npm): skipped
        return True, ""


def main(url, token, image, task="", tests_dir=""):
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    log = logging.getLogger("rock-roll-check")
    m = Manager(sandbox_image=image, logger=log, xrl_authorization=token, sandbox_base_url=url,
                user_id="0000", experiment_id="rbx-check", startup_timeout=300)
    assert m.is_environment_available, m.initialization_error
    st = asyncio.run(m.sandbox.get_status())
    print("started", m.sandbox_id, "host_ip", m.sandbox_ip, "metadata", st.metadata)
    r = m.run_script_with_timeout("agent", "#!/bin/bash\nfor i in 1 2 3; do echo line $i; sleep 1; done\n", timeout=120)
    assert r.exit_code == 0 and "line 3" in r.output, r
    print("nohup script:", repr(r.output))
    if task:
        resolved, failure, out, _ = m.run_tests([tests_dir], 600, task)
        print("run_tests:", resolved, failure, repr(out[-500:]))
    assert m.stop_sandbox()
    print("stopped")


if __name__ == "__main__":
    main(*sys.argv[1:])
