#!/usr/bin/env bash
# bench-cli.sh IMAGE K
#
# The docker-CLI baseline a user would script by hand: start a container,
# run K trivial execs in it, remove it. Prints the milliseconds spent on the
# run plus the K execs (not the removal) as one number on stdout.
set -euo pipefail

image=${1:?usage: $0 IMAGE K}
k=${2:?usage: $0 IMAGE K}
case $k in '' | *[!0-9]*) echo "bench-cli: K must be a number" >&2; exit 2 ;; esac

id=
cleanup() { if [ -n "$id" ]; then docker rm -f "$id" >/dev/null 2>&1 || true; fi; }
trap cleanup EXIT

start=$(date +%s%N)
id=$(docker run -d --network none "$image" sleep 3600)
for ((i = 0; i < k; i++)); do
	docker exec "$id" sh -c true
done
end=$(date +%s%N)

docker rm -f "$id" >/dev/null
id=
echo $(((end - start) / 1000000))
