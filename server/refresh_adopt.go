package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
)

// offer queues a successful episode of e as a candidate reference when
// refresh is on and the episode qualifies (see newCandidate). Callers hold
// the episode's lock; offer never blocks on the check.
func (s *Server) offer(e *Entry, rec record) bool {
	if s.rf == nil {
		return false
	}
	c, err := newCandidate(e, rec)
	if err != nil {
		s.cfg.log.Debug("serve: not a reference candidate", "task", rec.Task, "episode", rec.ID, "why", err)
		return false
	}
	s.rf.note(c, CandidateSeen, "", "", 0)
	s.cfg.log.Info("serve: reference candidate", "task", c.task, "episode", c.episode, "k", c.k, "t", c.traj.Len(), "version", c.parent)
	if dropped := s.rf.enqueue(c); dropped != nil {
		s.reject(dropped, reason.Superseded, "a shorter candidate of the task is waiting")
	}
	return true
}

// refreshLoop checks queued candidates one at a time until the server stops.
func (s *Server) refreshLoop() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	for {
		c := s.rf.next()
		if c == nil {
			select {
			case <-s.stop:
				return
			case <-s.rf.wake:
			}
			continue
		}
		s.consider(ctx, c)
	}
}

// consider re-verifies c and adopts it when it passes.
func (s *Server) consider(ctx context.Context, c *candidate) {
	cur := s.refs.current(c.task)
	if cur.version != c.parent {
		s.reject(c, reason.Stale, fmt.Sprintf("reset on version %d, the reference is now version %d", c.parent, cur.version))
		return
	}
	start := time.Now()
	v, err := s.rf.check.check(ctx, cur.Task, c.traj)
	switch {
	case err != nil && ctx.Err() != nil:
		s.reject(c, reason.Interrupted, err.Error())
		return
	case err != nil:
		s.reject(c, reason.Infra, err.Error())
		return
	case !v.passed:
		s.reject(c, v.why, v.detail)
		return
	}
	s.rf.note(c, CandidateVerified, "", fmt.Sprintf("checked in %s", time.Since(start).Round(time.Millisecond)), 0)
	if why, err := s.adopt(ctx, c); err != nil {
		s.reject(c, why, err.Error())
	}
}

// adopt makes c the task's next reference version: stored first, then
// the curriculum rebased, then served. Resets and outcomes wait for it
// (adoptMu), so none sees the curriculum of one version and the
// reference of another.
func (s *Server) adopt(ctx context.Context, c *candidate) (reason.Reason, error) {
	s.adoptMu.Lock()
	defer s.adoptMu.Unlock()
	cur := s.refs.current(c.task)
	if cur.version != c.parent {
		return reason.Stale, fmt.Errorf("reset on version %d, the reference is now version %d", c.parent, cur.version)
	}
	e := &Entry{Task: cur.Task, Ref: c.traj, version: cur.version + 1}
	m := RefVersion{Task: c.task, Version: e.version, Parent: c.parent, K: c.k, Episode: c.episode,
		ID: c.traj.ID, T: c.traj.Len(), Adopted: time.Now().UTC()}
	if s.jr != nil {
		if err := s.jr.putReferences(ctx, append(s.refs.stored(c.task), storedRef{meta: m, ref: c.traj})); err != nil {
			return reason.Infra, err
		}
	}
	if err := s.eng.Rebase(rebase(e, m)); err != nil {
		if s.jr != nil {
			err = errors.Join(err, s.jr.deleteReference(ctx, m.Task, m.Version))
		}
		return reason.Infra, fmt.Errorf("rebase the curriculum: %w", err)
	}
	if err := s.refs.add(e, m); err != nil {
		return reason.Infra, err
	}
	s.rf.note(c, CandidateAdopted, "", "", m.Version)
	s.cfg.log.Info("serve: reference adopted", "task", c.task, "version", m.Version, "episode", c.episode, "k", c.k, "t", m.T, "was", cur.Ref.Len())
	return "", nil
}

func (s *Server) reject(c *candidate, why reason.Reason, detail string) {
	s.rf.note(c, CandidateRejected, why, detail, 0)
	s.cfg.log.Info("serve: reference candidate rejected", "task", c.task, "episode", c.episode, "reason", why, "detail", detail)
}
