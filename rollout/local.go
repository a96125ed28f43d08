package rollout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// Resetter is what Local needs of reset.Resetter.
type Resetter interface {
	Reset(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (*reset.Episode, error)
	Release(sb sandbox.Sandbox)
}

// Local runs episodes in process: sandboxes reset by RS, actions carried
// out by continuing the reset's replay run, the verifier run in process,
// forks replayed into fresh sandboxes and evidence scored in scratch ones
// (package evidence). Its zero value is not usable (RS is required); it
// must not be copied after first use. It is safe for concurrent use.
type Local struct {
	// RS resets and releases the episodes' sandboxes.
	RS Resetter
	// EpisodeTimeout bounds the acting part of each episode, from Open (or
	// Fork) on, as a server's episode_timeout does: Do returns
	// ErrEpisodeOver once it is past (0: the task's episode timeout).
	EpisodeTimeout time.Duration
	// Source materialises the states Evidence scores (nil:
	// evidence.Replay on RS).
	Source evidence.Source

	memo memo
}

var (
	_ Env       = (*Local)(nil)
	_ Forker    = (*Local)(nil)
	_ Evidencer = (*Local)(nil)
)

// Open resets a sandbox to k.
func (l *Local) Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (Episode, error) {
	ep, err := l.RS.Reset(ctx, tk, traj, k)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(episodeTimeout(l.EpisodeTimeout, tk))
	return &localEpisode{rs: l.RS, ep: ep, tk: tk, traj: traj, k: k, deadline: deadline}, nil
}

// Fork resets a fresh sandbox to parent's checkpoint and replays acts[:t]
// into it.
func (l *Local) Fork(ctx context.Context, parent Episode, acts []trajectory.Step, t int) (Episode, []trajectory.Step, error) {
	p, ok := parent.(*localEpisode)
	if !ok {
		return nil, nil, fmt.Errorf("fork: %T is not an episode of a local environment", parent)
	}
	ep, err := l.Open(ctx, p.tk, p.traj, p.k)
	if err != nil {
		return nil, nil, err
	}
	got := make([]trajectory.Step, 0, t)
	for i, a := range acts[:t] {
		obs, err := ep.Do(ctx, a, false)
		if err != nil {
			ep.Close()
			return nil, nil, fmt.Errorf("replay action %d (%s): %w", i, replayer.Summary(a), err)
		}
		got = append(got, Record(a, *obs, a.Intervened))
	}
	return ep, got, nil
}

// Evidence scores the rubric after acts[:t] in a scratch sandbox, once per
// state for the life of l (see memo).
func (l *Local) Evidence(ctx context.Context, parent Episode, acts []trajectory.Step, t int) (*evidence.Result, bool, error) {
	p, ok := parent.(*localEpisode)
	if !ok {
		return nil, false, fmt.Errorf("evidence: %T is not an episode of a local environment", parent)
	}
	src := l.Source
	if src == nil {
		src = evidence.Replay{RS: l.RS}
	}
	st := evidence.State{Task: p.tk, Ref: p.traj, K: p.k, Actions: acts[:t]}
	return l.memo.score(st, func() (*evidence.Result, error) { return evidence.Score(ctx, src, st, false) })
}

// localEpisode is one sandbox of a Local.
type localEpisode struct {
	rs       Resetter
	ep       *reset.Episode
	tk       *task.Task
	traj     *trajectory.Trajectory
	k        int
	deadline time.Time // of the acting part
	once     sync.Once
}

// Do continues the reset's replay run (replayer.Run.Do): never compared
// against a recording, with the variables bound so far.
func (e *localEpisode) Do(ctx context.Context, a trajectory.Step, _ bool) (*trajectory.Observation, error) {
	dctx, cancel := context.WithDeadline(ctx, e.deadline)
	defer cancel()
	obs, err := replayer.Observe(e.ep.Run.Do(dctx, a))
	if ctx.Err() == nil && !time.Now().Before(e.deadline) {
		// It ran up to the episode's end (or was cut by it): the step
		// counts and the episode has no more, as a server truncates.
		return &obs, fmt.Errorf("%w (episode timeout)", ErrEpisodeOver)
	}
	return &obs, err
}

func (e *localEpisode) Verify(ctx context.Context) (bool, error) {
	vctx, cancel := context.WithTimeout(ctx, e.tk.VerifyTimeout())
	defer cancel()
	v, err := verifier.Run(vctx, e.ep.Sandbox, e.tk)
	if err != nil {
		return false, err
	}
	return v.Passed, nil
}

func (e *localEpisode) Close() { e.once.Do(func() { e.rs.Release(e.ep.Sandbox) }) }
