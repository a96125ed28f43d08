#!/bin/sh
# runsc with rbx's flags, for containerd's runc shim, which runs this in
# runc's place (its options name a binary, not a command line; Debian's
# runsc has no containerd-shim-runsc-v1). scripts/host-setup.sh installs it
# as /usr/local/lib/rbx/runsc, @RUNSC_FLAGS@ replaced by its RUNSC_FLAGS.
#
# A kill of a container whose sandbox ended fails with runsc's "sandbox is
# not running", which the shim takes for a failure; runc's "container not
# running" it takes for "already gone": said so (else a CRI pod whose
# gVisor ended cannot be stopped, nor its task deleted).
#
# Two things the runc shim expects of runc that runsc does differently, for
# the second and later containers of a CRI pod (one gVisor sandbox per pod):
#   - `start` hands the container the stdio of the start command itself,
#     which is the shim's pipe for that command's output: the shim would
#     wait for its end as long as the container runs. Start gets none.
#   - `create` writes the sandbox's pid, not the container's, to the pid
#     file, so the shim would never see the container end (an init
#     container would never complete). A waiter, `runsc wait` for that
#     container, takes its place in the pid file and exits with its status.
set -u
runsc="/usr/bin/runsc @RUNSC_FLAGS@"
cmd= bundle= pidfile= id= prev= globals=
for a in "$@"; do
	case $prev in
	--bundle) bundle=$a ;;
	--pid-file) pidfile=$a ;;
	esac
	case $a in
	--bundle=*) bundle=${a#*=} ;;
	--pid-file=*) pidfile=${a#*=} ;;
	esac
	if [ -z "$cmd" ]; then
		case $a in
		create | start | kill) cmd=$a ;;
		*) globals="$globals $a" ;;
		esac
	fi
	prev=$a id=$a
done

case $cmd in
start) exec $runsc "$@" </dev/null >/dev/null 2>&1 ;;
kill)
	out=$($runsc "$@" 2>&1)
	rc=$?
	case $rc:$out in
	0:*) ;;
	*"sandbox is not running"*) out="container not running ($out)" ;;
	esac
	[ -z "$out" ] || printf '%s\n' "$out" >&2
	exit $rc
	;;
create)
	# A CRI container that is not the pod's sandbox (pause) container.
	if [ -n "$bundle" ] && [ -n "$pidfile" ] &&
		grep -Eq '"io.kubernetes.cri.container-type": ?"container"' "$bundle/config.json" 2>/dev/null; then
		$runsc "$@" || exit
		(
			while :; do
				case $($runsc $globals state "$id" 2>/dev/null) in
				*'"status": "created"'* | *'"status":"created"'*) sleep 0.05 ;;
				*) break ;;
				esac
			done
			code=$($runsc $globals wait "$id" 2>/dev/null | sed -n 's/.*"exitStatus": *\([0-9]*\).*/\1/p')
			exit "${code:-255}"
		) </dev/null >/dev/null 2>&1 &
		printf %s $! >"$pidfile" # no newline: the shim reads a bare number
		exit 0
	fi
	;;
esac
exec $runsc "$@"
