package docker

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// oomScript prints the container cgroup's OOM-kill counter: memory.oom_control
// on cgroup v1, memory.events on v2, both read with shell builtins so that
// images without cat work.
const oomScript = `for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do
  [ -r "$f" ] || continue
  while read -r k v; do [ "$k" = oom_kill ] && { echo "$v"; exit 0; }; done < "$f"
done
exit 1`

// oomTimeout bounds the counter read, which runs on the rare exit-137 path.
const oomTimeout = 5 * time.Second

// markOOM sets res.OOMKilled when the step ended with SIGKILL's status and
// the container's OOM-kill counter grew since it was last read. It costs
// nothing unless the exit code is 137. For an opened container whose earlier
// count is unknown, any OOM kill on record counts.
func (s *Sandbox) markOOM(ctx context.Context, res *sandbox.ExecResult) {
	sandbox.MarkOOM(res, &s.oomMu, &s.oomSeen, func() int64 { return s.oomCount(ctx) })
}

// oomCount returns the container's OOM-kill count; -1 when it cannot be
// read.
func (s *Sandbox) oomCount(ctx context.Context) int64 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), oomTimeout)
	defer cancel()
	out, code, err := s.runShort(ctx, "/bin/sh", "-c", oomScript)
	if err != nil || code != 0 {
		s.rt.log.Debug("read oom counter", "sandbox", s.id, "exit", code, "err", err)
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
