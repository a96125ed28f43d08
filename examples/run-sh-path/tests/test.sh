#!/bin/sh
# Verifier for run-sh-path: the entry script must be ./run.sh at the
# repository root, executable, and total the amount column of any orders
# file. Runs from the workdir.
set -u

fail() {
	echo "FAIL: $1"
	exit 1
}

[ -f run.sh ] || fail "./run.sh not found at the repository root"
[ -x run.sh ] || fail "./run.sh is not executable"
out=$(./run.sh) || fail "./run.sh exited with status $?"
[ "$out" = "total=14024" ] || fail "./run.sh printed '$out', expected 'total=14024'"
out=$(./run.sh .rbx-tests/orders.csv) || fail "./run.sh FILE exited with status $?"
[ "$out" = "total=130000" ] || fail "./run.sh FILE printed '$out', expected 'total=130000'"
echo "PASS: ./run.sh totals the amount column"
