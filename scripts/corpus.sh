#!/usr/bin/env bash
# scripts/corpus.sh GITDIR [OUT.md]
#
# Imports, builds and prefilters (R = 2) a fixed selection of real tasks
# from a fetched copy of rese1f/terminal-bench-datasets and writes the
# verdicts to OUT.md (default docs/corpus.md). GITDIR is the dataset's git
# directory (bare or not); nothing is fetched and no dataset file is ever
# written inside the repository: tasks are extracted with `git archive`
# into a temporary directory, removed at the end (KEEP=1 keeps it).
#
# Selection (deterministic, from the names at HEAD, sorted with LC_ALL=C):
#   evoeval         the first $EVOEVAL (30) tasks;
#   deveval         one task per repository (21), the phase rotating with
#                   the repository's index: acceptance-testing,
#                   implementation, unit-testing, acceptance-testing, ...;
#   aider_polyglot  the first $POLYGLOT (4) tasks of each language (cpp, go,
#                   java, javascript, python, rust).
# Set EVOEVAL, POLYGLOT or ONLY (a regexp on dataset/task) for a subset, JOBS
# for tasks run at a time (default 1).
set -euo pipefail

gitdir=${1:?usage: scripts/corpus.sh GITDIR [OUT.md]}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/docs/corpus.md}
evoeval=${EVOEVAL:-30}
polyglot=${POLYGLOT:-4}
only=${ONLY:-.}
jobs=${JOBS:-1}
export LC_ALL=C

git -C "$gitdir" rev-parse --verify -q HEAD >/dev/null || { echo "corpus: $gitdir is not a git directory" >&2; exit 2; }
rev=$(git -C "$gitdir" rev-parse --short=12 HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/rbx-corpus.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then echo "corpus: work dir $work (kept)" >&2; else trap 'rm -rf "$work"' EXIT; fi

(cd "$root" && go build -o "$work/rbx" ./cmd/rbx)
rbx=$work/rbx

names() { git -C "$gitdir" ls-tree --name-only HEAD "datasets/$1/" | sed 's|.*/||' | sort; }
{
	names evoeval | head -n "$evoeval" | sed 's|^|evoeval/|'
	names deveval | sed -E 's/-(acceptance-testing|implementation|unit-testing)$//' | uniq |
		awk '{ split("acceptance-testing implementation unit-testing", p, " "); print "deveval/" $0 "-" p[(NR-1)%3+1] }'
	for lang in cpp go java javascript python rust; do
		names aider_polyglot | grep "^polyglot_${lang}_" | head -n "$polyglot" | sed 's|^|aider_polyglot/|'
	done
} | grep -E "$only" >"$work/selection"
echo "corpus: $(wc -l <"$work/selection") tasks from $gitdir ($rev)" >&2

# Base and toolchain images are built on demand by the import (cached).

mkdir -p "$work/src" "$work/tasks" "$work/results"

# one DATASET TASK: extract, import (builds the image), prefilter with R = 2.
one() {
	local ds=$1 task=$2 res=$work/results/$1--$2 start dir
	start=$(date +%s)
	mkdir -p "$work/src/$ds"
	# The subtree only: a fetched copy may lack the blobs of other tasks.
	if ! git -C "$gitdir" archive --prefix="$task/" "HEAD:datasets/$ds/$task" 2>"$res.extract.log" |
		tar -x -C "$work/src/$ds" 2>>"$res.extract.log"; then
		echo "corpus: $ds/$task: task incomplete in dataset (see the table)" >&2
		echo 0 >"$res.seconds"
		return
	fi
	"$rbx" import terminal-bench "$work/src/$ds/$task" --out "$work/tasks/$ds" --output json \
		>"$res.import.json" 2>"$res.import.log" || true
	dir=$(jq -r '.tasks[0].dir // empty' "$res.import.json" 2>/dev/null || true)
	if [ -n "$dir" ]; then
		"$rbx" prefilter "$dir/reference.json" --repeats 2 --concurrency 2 --output json \
			>"$res.prefilter.json" 2>"$res.prefilter.log" || true
	fi
	echo $(($(date +%s) - start)) >"$res.seconds"
	echo "corpus: $ds/$task done in $(cat "$res.seconds")s" >&2
}

# JOBS tasks at a time (default 1): image builds are mostly I/O, so 2–3
# overlap well; prefilter runs its R repeats concurrently within a task.
running=0
while IFS=/ read -r ds task; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	one "$ds" "$task" &
	running=$((running + 1))
done <"$work/selection"
wait

python3 "$root/scripts/corpus_table.py" "$work/selection" "$work/results" "$rev" \
	"EVOEVAL=$evoeval POLYGLOT=$polyglot ONLY='$only' JOBS=$jobs scripts/corpus.sh $gitdir" >"$out"
echo "corpus: wrote $out" >&2
