package docker

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// exitSIGKILL is the status of a process killed by SIGKILL, which is how the
// kernel OOM killer ends one.
const exitSIGKILL = 128 + 9

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
	if res.ExitCode != exitSIGKILL || res.TimedOut {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), oomTimeout)
	defer cancel()
	out, code, err := s.runShort(ctx, "/bin/sh", "-c", oomScript)
	if err != nil || code != 0 {
		s.rt.log.Debug("read oom counter", "sandbox", s.id, "exit", code, "err", err)
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return
	}
	s.oomMu.Lock()
	defer s.oomMu.Unlock()
	if n > s.oomSeen && n > 0 {
		res.OOMKilled = true
	}
	s.oomSeen = max(s.oomSeen, n)
}
