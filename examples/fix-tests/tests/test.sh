#!/bin/sh
# Verifier for fix-tests: its own copy of the visible tests and the hidden
# tests must pass. It runs in a fresh shell from the workdir, so it sets
# PYTHONPATH itself rather than relying on the agent's exports.
set -u
root=$(pwd)
export PYTHONPATH="$root/src"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/.rbx-tests" || exit 1
if ! python3 -m unittest test_core test_hidden; then
	echo "FAIL: tests do not pass"
	exit 1
fi
echo "PASS: visible and hidden tests pass"
