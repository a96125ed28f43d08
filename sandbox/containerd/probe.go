package containerd

import (
	"context"
	"errors"
	"fmt"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Prober = (*Sandbox)(nil)

// Probe implements sandbox.Prober from the task's status (paused,
// stopped and why). It reads no process count: Health.Pids stays 0, and
// pids exhaustion is told by the error's words alone.
func (s *Sandbox) Probe(ctx context.Context) (sandbox.Health, error) {
	if err := s.checkRunning(ctx); err != nil {
		if ge, ok := errors.AsType[*sandbox.GoneError](err); ok {
			return sandbox.Health{Gone: ge}, nil
		}
		return sandbox.Health{}, fmt.Errorf("probe sandbox %s: %w", s.id, err)
	}
	ctx, cancel := context.WithTimeout(s.rt.ctx(ctx), inspectTimeout)
	defer cancel()
	st, err := s.task.Status(ctx)
	if err != nil {
		return sandbox.Health{}, fmt.Errorf("probe sandbox %s: %w", s.id, engineErr(err))
	}
	return sandbox.Health{Frozen: st.Status == client.Paused || st.Status == client.Pausing}, nil
}
