package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/rbx-sandbox/rbx/verifier"
)

// verifierChecks remembers, per reference version, whether the task's
// verifier runs on the reference's own end state: the check costs a
// reset to T, made once.
type verifierChecks struct {
	mu   sync.Mutex
	done map[*Entry]string // "" : the verifier runs there
}

// verifierBroken says why the verifier, which could not run in an
// episode (unrun: its command not found or not executable, no fork), is
// the task's fault: it fails on the reference's end state too, or the
// reference no longer gets there. "" means it runs there, so the policy
// broke it (a failure with reward 0), or the check could not be made
// (logged; the failure stays the policy's).
func (s *Server) verifierBroken(ctx context.Context, e *Entry) string {
	c := &s.vchecks
	c.mu.Lock()
	defer c.mu.Unlock() // one check at a time: rare, and never twice
	if why, ok := c.done[e]; ok {
		return why
	}
	why, err := s.checkVerifier(ctx, e)
	if err != nil {
		s.cfg.log.Warn("serve: check the verifier on the reference's end state", "task", e.Task.ID, "err", err)
		return ""
	}
	if c.done == nil {
		c.done = map[*Entry]string{}
	}
	c.done[e] = why
	return why
}

// checkVerifier runs the verifier on a sandbox reset to the reference's
// end (T).
func (s *Server) checkVerifier(ctx context.Context, e *Entry) (string, error) {
	t := e.Ref.Len()
	rs, err := s.rs.Reset(ctx, e.Task, e.Ref, t)
	if err != nil {
		if ae := resetFailed(err); ae.Status == 422 {
			return fmt.Sprintf("the reference no longer replays to its end (T = %d): %v", t, err), nil
		}
		return "", err
	}
	defer s.rs.Release(rs.Sandbox)
	ref, err := verifier.Run(ctx, rs.Sandbox, e.Task)
	if err != nil {
		return "", err
	}
	if !ref.Passed {
		return fmt.Sprintf("the verifier exits %d on the reference's end state too (T = %d): %s", ref.ExitCode, t, clip(ref.Output, 1000)), nil
	}
	return "", nil
}
