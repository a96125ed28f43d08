package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// checkRecycle refuses Spec.Recycle without an agent (WithAgent) and makes
// sure the agent's volume is ready.
func (r *Runtime) checkRecycle(ctx context.Context, spec sandbox.Spec) error {
	if !spec.Recycle {
		return nil
	}
	if r.agent == nil {
		return fmt.Errorf("%w: recycle: the docker runtime has no agent (docker.WithAgent)", sandbox.ErrUnsupported)
	}
	return r.ensureAgent(ctx, spec.Image)
}

// startRecyclable finishes the Create of a recyclable sandbox: the agent
// takes its fresh listing, then (session mode) the session shell opens in
// an exec. Unlike other sandboxes, the session shell is not the
// container's main process (the agent is): an exec'd shell is what a
// Recycle reopens, so a fresh and a recycled sandbox run the same
// processes.
func (s *Sandbox) startRecyclable(ctx context.Context, imageID string) error {
	start := time.Now()
	if err := s.prepareRecycle(ctx, imageID); err != nil {
		return fmt.Errorf("prepare recycling: %w", err)
	}
	// The listing is what a plain Create does not pay; the session below
	// replaces the attached one a plain Create opens.
	s.rec.prepared = time.Since(start)
	if s.mode != sandbox.ModeSession {
		return nil
	}
	c, err := s.openSession(ctx)
	if err != nil {
		return fmt.Errorf("prepare recycling: %w", err)
	}
	s.keeper.Install(c)
	// What the engine gave this first shell, read before any policy ran:
	// a recycle starts the next one alike from its own exec.
	out, err := s.runAgent(ctx, "whois")
	if err != nil {
		return fmt.Errorf("prepare recycling: session shell: %w", err)
	}
	var sp agent.SessionSpec
	if err := json.Unmarshal(out, &sp); err != nil {
		return fmt.Errorf("prepare recycling: session shell: %w", err)
	}
	if sp.Path != "" {
		s.rec.shell = &sp
	} else {
		s.rt.log.Debug("session shell cannot be started alike by the agent: a recycle reopens it with an exec", "id", s.id, "argv", sp.Argv)
	}
	return nil
}

// RecyclePrepared is how long Create spent taking the fresh listing (0 for
// a sandbox created without Spec.Recycle).
func (s *Sandbox) RecyclePrepared() time.Duration {
	if s.rec == nil {
		return 0
	}
	return s.rec.prepared
}
