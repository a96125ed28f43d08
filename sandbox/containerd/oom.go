package containerd

import (
	"context"
	"time"

	v1 "github.com/containerd/cgroups/v3/cgroup1/stats"
	v2 "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/typeurl/v2"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// exitSIGKILL is the status of a process killed by SIGKILL, which is how
// the kernel OOM killer ends one.
const exitSIGKILL = 128 + 9

// oomTimeout bounds the counter read, which runs on the rare exit-137 path.
const oomTimeout = 5 * time.Second

// oomCount returns the OOM-kill count of the container's cgroup, from the
// task's metrics (cgroup v1 or v2); -1 when it cannot be read.
func (s *Sandbox) oomCount(ctx context.Context) int64 {
	ctx, cancel := context.WithTimeout(s.rt.ctx(context.WithoutCancel(ctx)), oomTimeout)
	defer cancel()
	m, err := s.task.Metrics(ctx)
	if err != nil || m.Data == nil {
		return -1
	}
	data, err := typeurl.UnmarshalAny(m.Data)
	if err != nil {
		return -1
	}
	switch st := data.(type) {
	case *v1.Metrics:
		if st.MemoryOomControl != nil {
			return int64(st.MemoryOomControl.OomKill)
		}
	case *v2.Metrics:
		if st.MemoryEvents != nil {
			return int64(st.MemoryEvents.OomKill)
		}
	}
	return -1
}

// markOOM sets res.OOMKilled when the step ended with SIGKILL's status and
// the cgroup's OOM-kill counter grew since it was last read. It costs
// nothing unless the exit code is 137.
func (s *Sandbox) markOOM(ctx context.Context, res *sandbox.ExecResult) {
	sandbox.MarkOOM(res, &s.mu, &s.oomSeen, func() int64 { return s.oomCount(ctx) })
}
