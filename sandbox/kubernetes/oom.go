package kubernetes

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// exitSIGKILL is the status of a process killed by SIGKILL, which is how
// the kernel OOM killer ends one.
const exitSIGKILL = 128 + 9

// oomTimeout bounds the counter read, which runs on the rare exit-137 path.
const oomTimeout = 5 * time.Second

// oomScript prints the OOM-kill count of the container's memory cgroup as
// the container sees it (cgroup v2 memory.events, or v1 memory.oom_control;
// the kubelet mounts the container's own cgroup).
const oomScript = `for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do
[ -r "$f" ] && { sed -n 's/^oom_kill //p' "$f"; exit 0; }; done; echo -1`

// oomCount returns the OOM-kill count of the container; -1 when it cannot
// be read. Only the pod's own busybox runs: the pod status does not show
// the OOM kill of an exec's process, only of the main one.
func (s *Sandbox) oomCount(ctx context.Context) int64 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), oomTimeout)
	defer cancel()
	out, code, err := s.runShort(ctx, oomScript, nil, nil)
	if err != nil || code != 0 {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// markOOM sets res.OOMKilled when the step ended with SIGKILL's status and
// the cgroup's OOM-kill counter grew since it was last read. It costs
// nothing unless the exit code is 137.
func (s *Sandbox) markOOM(ctx context.Context, res *sandbox.ExecResult) {
	sandbox.MarkOOM(res, &s.mu, &s.oomSeen, func() int64 { return s.oomCount(ctx) })
}
