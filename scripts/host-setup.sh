#!/usr/bin/env bash
# Host set-up for the tests: the one list of Debian packages the tests need
# on this machine, and a running Docker Engine. `make test` and `.ci/run`
# both call it, so a fresh machine needs nothing installed by hand.
#
#   scripts/host-setup.sh packages   install what is missing from HOST_PACKAGES
#   scripts/host-setup.sh engine     wait for the engine; start dockerd if none runs
#   scripts/host-setup.sh runsc      register gVisor's runsc with the local engine; install
#                                    its wrapper for containerd (RUNSC_WRAPPER)
#   scripts/host-setup.sh            all three
#
# Not root: a missing package or engine is reported and the script goes on
# (the tests that need it skip, or fail under RBX_REQUIRE_DOCKER=1).
set -euo pipefail

# Why each package is here:
#   containernetworking-plugins  the containerd backend's bridge network (CNI)
#   docker-registry              the pull tests' loopback registry
#   chromium                     the dashboard's headless browser test
#   debootstrap busybox-static   the base images (images/ installs them too)
#   runsc                        gVisor, the engine's second OCI runtime (registered by `runsc`
#                                below; the docker, containerd and kubernetes backends' runsc tests)
#   python3                      edits daemon.json to register runsc
HOST_PACKAGES=(containernetworking-plugins docker-registry chromium debootstrap busybox-static runsc python3)

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

# RUNSC_FLAGS are runsc's flags as registered: no network of its own (its
# network stack needs a network namespace the engine here does not give
# it: "cannot run with network enabled in root network namespace"), and
# files the engine writes into a running container (rbx's archive writes)
# seen at once inside it.
RUNSC_FLAGS='--network=none --file-access=shared'

# RUNSC_WRAPPER is /usr/bin/runsc with RUNSC_FLAGS, for containerd's runc
# shim, whose options name a binary but no flags (Debian's runsc has no
# containerd-shim-runsc-v1): the containerd backend's --oci-runtime runsc
# (containerd.RunscWrapper) and the test cluster's runsc RuntimeClass
# (scripts/k8s-cluster.sh) run it in runc's place.
RUNSC_WRAPPER=/usr/local/lib/rbx/runsc

# runsc registers /usr/bin/runsc as the local engine's "runsc" runtime in
# /etc/docker/daemon.json and has dockerd reload it (SIGHUP: no restart,
# running containers untouched), after installing RUNSC_WRAPPER. Said, and
# skipped, when it cannot.
runsc() {
	[ -x /usr/bin/runsc ] || { say "no /usr/bin/runsc: gVisor not registered (apt-get install runsc)"; return 0; }
	runsc_wrapper
	[ "$(id -u)" = 0 ] && pgrep -x dockerd >/dev/null && command -v python3 >/dev/null ||
		{ say "not root, no local dockerd or no python3: runsc not registered"; return 0; }
	local conf=/etc/docker/daemon.json
	if python3 - "$conf" "$RUNSC_FLAGS" <<'PY'
import json, os, sys
path, args = sys.argv[1], sys.argv[2].split()
conf = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {}
want = {"path": "/usr/bin/runsc", "runtimeArgs": args}
if conf.get("runtimes", {}).get("runsc") == want:
    sys.exit(1)
conf.setdefault("runtimes", {})["runsc"] = want
os.makedirs(os.path.dirname(path), exist_ok=True)
json.dump(conf, open(path, "w"), indent=2)
PY
	then
		say "registering runsc with the engine ($conf) and reloading dockerd"
		kill -HUP "$(pgrep -xo dockerd)"
		sleep 2
	fi
}

# runsc_wrapper installs scripts/runsc-wrapper.sh, with RUNSC_FLAGS, as
# RUNSC_WRAPPER when it is missing or differs.
runsc_wrapper() {
	[ "$(id -u)" = 0 ] || { say "not root: $RUNSC_WRAPPER not installed"; return 0; }
	local want
	want=$(sed "s|@RUNSC_FLAGS@|$RUNSC_FLAGS|" "$(dirname "$0")/runsc-wrapper.sh")
	[ -x "$RUNSC_WRAPPER" ] && [ "$(cat "$RUNSC_WRAPPER")" = "$want" ] && return 0
	say "installing $RUNSC_WRAPPER (runsc $RUNSC_FLAGS, for containerd and the test cluster)"
	mkdir -p "$(dirname "$RUNSC_WRAPPER")"
	printf '%s\n' "$want" >"$RUNSC_WRAPPER.tmp" && chmod 0755 "$RUNSC_WRAPPER.tmp" && mv "$RUNSC_WRAPPER.tmp" "$RUNSC_WRAPPER"
}

case "${1:-all}" in
packages) packages ;;
engine) engine ;;
runsc) runsc ;;
# Without an engine the engine tests skip, unless RBX_REQUIRE_DOCKER=1
# (CI) makes that a failure here already.
all) packages && { engine || [ "${RBX_REQUIRE_DOCKER:-}" != 1 ]; } && runsc ;;
*) say "usage: $0 [packages|engine|runsc|all]"; exit 2 ;;
esac
