package intervene

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// local runs episodes in-process: sandboxes from a resetter, evidence in
// scratch sandboxes (package evidence), memoised per run.
type local struct {
	rs      Resetter
	sc      *scanner
	tk      *task.Task
	ref     *trajectory.Trajectory
	k       int
	timeout time.Duration // of the acting part of each episode
}

type localSession struct {
	l      *local
	ep     *reset.Episode
	ctx    context.Context // the episode's deadline
	cancel context.CancelFunc
	done   bool
}

func (l *local) start(ctx context.Context) (session, error) {
	ep, err := l.rs.Reset(ctx, l.tk, l.ref, l.k)
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, l.timeout)
	return &localSession{l: l, ep: ep, ctx: ectx, cancel: cancel}, nil
}

// fork resets a fresh sandbox and replays acts[:t] into it.
func (l *local) fork(ctx context.Context, _ session, acts []trajectory.Step, t int) (session, []trajectory.Step, error) {
	s, err := l.start(ctx)
	if err != nil {
		return nil, nil, err
	}
	got := make([]trajectory.Step, 0, t)
	for i, a := range acts[:t] {
		obs, err := s.do(ctx, a, false)
		if err != nil {
			s.release()
			return nil, nil, fmt.Errorf("replay action %d (%s): %w", i, replayer.Summary(a), err)
		}
		got = append(got, record(a, obs, a.Intervened))
	}
	return s, got, nil
}

func (l *local) evidence(ctx context.Context, _ session, acts []trajectory.Step, t int, cost *EvidenceCost) (*evidence.Result, error) {
	return l.sc.at(ctx, acts, t, cost)
}

func (s *localSession) do(ctx context.Context, a trajectory.Step, _ bool) (trajectory.Observation, error) {
	obs, err := replayer.Observe(s.ep.Run.Do(s.ctx, a))
	if err != nil && s.ctx.Err() != nil && ctx.Err() == nil {
		return obs, errTurnOver
	}
	return obs, err
}

func (s *localSession) verify(ctx context.Context) (bool, error) {
	vctx, cancel := context.WithTimeout(ctx, s.l.tk.VerifyTimeout())
	defer cancel()
	v, err := verifier.Run(vctx, s.ep.Sandbox, s.l.tk)
	if err != nil {
		return false, err
	}
	return v.Passed, nil
}

func (s *localSession) release() {
	if s.done {
		return
	}
	s.done = true
	s.cancel()
	s.l.rs.Release(s.ep.Sandbox)
}
