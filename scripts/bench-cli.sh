#!/usr/bin/env bash
# bench-cli.sh IMAGE K [MODE]
#
# The docker-CLI baselines of the benchmarks (the only place rbx's tree
# runs the docker CLI: it is what is being measured). Prints milliseconds
# as one number on stdout. MODE says what is timed:
#   run   (default) docker run + K × docker exec; the removal is not timed
#   exec  K × docker exec in a container started before timing
#   cold  docker run + K × docker exec + docker rm -f, all timed (the
#         whole-process baseline of `rbx replay --to K`)
set -euo pipefail

image=${1:?usage: $0 IMAGE K [run|exec|cold]}
k=${2:?usage: $0 IMAGE K [run|exec|cold]}
mode=${3:-run}
case $k in '' | *[!0-9]*) echo "bench-cli: K must be a number" >&2; exit 2 ;; esac
case $mode in run | exec | cold) ;; *) echo "bench-cli: MODE must be run, exec or cold" >&2; exit 2 ;; esac

id=
cleanup() { if [ -n "$id" ]; then docker rm -f "$id" >/dev/null 2>&1 || true; fi; }
trap cleanup EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }

if [ "$mode" = exec ]; then
	id=$(docker run -d --network none --label rbx.bench=cli "$image" sleep 3600)
fi
start=$(ms)
if [ "$mode" != exec ]; then
	id=$(docker run -d --network none --label rbx.bench=cli "$image" sleep 3600)
fi
for ((i = 0; i < k; i++)); do
	docker exec "$id" sh -c true
done
if [ "$mode" = cold ]; then
	docker rm -f "$id" >/dev/null
	id=
fi
end=$(ms)

if [ -n "$id" ]; then
	docker rm -f "$id" >/dev/null
	id=
fi
echo $((end - start))
