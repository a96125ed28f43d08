package docker

import (
	"context"
	"encoding/json"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Prober = (*Sandbox)(nil)

// Probe implements sandbox.Prober: the container's state from inspect
// (paused, stopped and why) and its process count from a one-shot stats
// read (the pids cgroup), neither of which runs anything in it.
func (s *Sandbox) Probe(ctx context.Context) (sandbox.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	info, err := s.rt.cli.ContainerInspect(ctx, s.id)
	switch {
	case cerrdefs.IsNotFound(err):
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}}, nil
	case err != nil && connLost(err):
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseEngineUnavailable, Detail: err.Error()}}, nil
	case err != nil:
		return sandbox.Health{}, fmt.Errorf("probe sandbox %s: %w", s.id, engineErr(err))
	case info.State == nil:
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseExited, Detail: "no state"}}, nil
	}
	h := sandbox.Health{Frozen: info.State.Paused}
	if !info.State.Running || info.State.Restarting {
		h.Gone = goneFromState(s.id, info.State)
		return h, nil
	}
	st, err := s.rt.cli.ContainerStatsOneShot(ctx, s.id)
	if err != nil {
		return h, fmt.Errorf("probe sandbox %s: stats: %w", s.id, engineErr(err))
	}
	defer st.Body.Close()
	var stats container.StatsResponse
	if err := json.NewDecoder(st.Body).Decode(&stats); err != nil {
		return h, fmt.Errorf("probe sandbox %s: stats: %w", s.id, err)
	}
	h.Pids, h.PidsLimit = int64(stats.PidsStats.Current), int64(stats.PidsStats.Limit)
	return h, nil
}
