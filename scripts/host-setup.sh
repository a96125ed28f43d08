#!/usr/bin/env bash
# Host set-up for the tests: the one list of Debian packages the tests need
# on this machine, and a running Docker Engine. `make test` and `.ci/run`
# both call it, so a fresh machine needs nothing installed by hand.
#
#   scripts/host-setup.sh packages   install what is missing from HOST_PACKAGES
#   scripts/host-setup.sh engine     wait for the engine; start dockerd if none runs
#   scripts/host-setup.sh            both
#
# Not root: a missing package or engine is reported and the script goes on
# (the tests that need it skip, or fail under RBX_REQUIRE_DOCKER=1).
set -euo pipefail

# Why each package is here:
#   containernetworking-plugins  the containerd backend's bridge network (CNI)
#   docker-registry              the pull tests' loopback registry
#   chromium                     the dashboard's headless browser test
#   debootstrap busybox-static   the base images (images/ installs them too)
HOST_PACKAGES=(containernetworking-plugins docker-registry chromium debootstrap busybox-static)

# The engine's socket; DOCKER_HOST (unix:// only) overrides it.
SOCK=${DOCKER_HOST:-unix:///var/run/docker.sock}
SOCK=${SOCK#unix://}
ENGINE_WAIT=${ENGINE_WAIT:-90}

say() { echo "host-setup: $*" >&2; }

packages() {
	local missing=()
	for p in "${HOST_PACKAGES[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		say "not root: cannot install ${missing[*]} (apt-get install ${missing[*]})"
		return 0
	fi
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
}

ping_engine() {
	curl -fsS --max-time 5 --unix-socket "$SOCK" http://engine/_ping >/dev/null 2>&1
}

wait_engine() {
	local n=$1
	for _ in $(seq "$n"); do
		ping_engine && return 0
		sleep 1
	done
	return 1
}

# engine makes sure a Docker Engine answers on $SOCK. A dockerd that is
# starting gets time to finish; when none runs (a machine whose service
# manager did not start it), one is started here and said so: its log is
# /var/log/rbx-dockerd.log. A remote DOCKER_HOST is left alone.
engine() {
	case "${DOCKER_HOST:-unix://}" in
	unix://*) ;;
	*) say "DOCKER_HOST=$DOCKER_HOST is not a unix socket: not checked"; return 0 ;;
	esac
	ping_engine && return 0
	if pgrep -x dockerd >/dev/null; then
		say "dockerd runs but does not answer on $SOCK yet; waiting up to ${ENGINE_WAIT}s"
		wait_engine "$ENGINE_WAIT" && return 0
		say "dockerd does not answer on $SOCK after ${ENGINE_WAIT}s"
		return 1
	fi
	if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
		say "no Docker Engine answers on $SOCK and this user cannot start one"
		return 1
	fi
	say "no Docker Engine answers on $SOCK: starting dockerd (log /var/log/rbx-dockerd.log)"
	nohup dockerd >>/var/log/rbx-dockerd.log 2>&1 </dev/null &
	if wait_engine "$ENGINE_WAIT"; then
		say "dockerd answers"
		return 0
	fi
	say "dockerd did not answer within ${ENGINE_WAIT}s; its log ends:"
	tail -n 20 /var/log/rbx-dockerd.log >&2 || true
	return 1
}

case "${1:-all}" in
packages) packages ;;
engine) engine ;;
# Without an engine the engine tests skip, unless RBX_REQUIRE_DOCKER=1
# (CI) makes that a failure here already.
all) packages && { engine || [ "${RBX_REQUIRE_DOCKER:-}" != 1 ]; } ;;
*) say "usage: $0 [packages|engine|all]"; exit 2 ;;
esac
