// Package intervene runs rollout-time intervention (RTI, docs/rti.md): for
// every rollout of a policy that fails, it finds from rubric evidence the
// step where the rollout went wrong, forks there (a fresh sandbox replaying
// the rollout's own actions up to that step), lets an intervener act for a
// bounded number of steps with the evidence in view, hands control back to
// the policy and verifies. A rescued trajectory keeps its intervened mask;
// the shift filter drops those whose intervened share of steps or tokens
// is above a threshold, as too far off-policy to train on.
package intervene

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Env is what the loop needs of where its episodes run: open them at the
// checkpoint, fork them, and score the rubric at the states they went
// through (rollout.Local and rollout.Served have all three).
type Env interface {
	rollout.Env
	rollout.Forker
	rollout.Evidencer
}

// Runner runs the intervention loop. It is safe for concurrent use.
type Runner struct {
	rs  rollout.Resetter // for a rollout.Local per run, when env is nil
	env Env
	pol policy.Policy
	iv  policy.Policy
	cfg config
}

// New returns a Runner whose episodes run in process on rs (each Run on a
// rollout.Local of its own, so evidence is memoised per run), rolling out
// pol and intervening with iv.
func New(rs rollout.Resetter, pol, iv policy.Policy, opts ...Option) (*Runner, error) {
	r, err := NewOn(nil, pol, iv, opts...)
	if err != nil {
		return nil, err
	}
	r.rs = rs
	return r, nil
}

// NewOn returns a Runner whose episodes run in env, such as a running rbx
// serve's (rollout.NewServed): rollouts are episodes reset at the
// checkpoint, intervened trajectories forks of them, evidence env's. The
// task and reference given to Run must be the ones env serves (the
// policies read them locally).
func NewOn(env Env, pol, iv policy.Policy, opts ...Option) (*Runner, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	return &Runner{env: env, pol: pol, iv: iv, cfg: cfg}, nil
}

// Run rolls pol out from checkpoint k of ref, a reference trajectory of
// tk, and intervenes in every rollout that fails. Rollouts that could not
// be run (a reset or sandbox failure) are counted as errors; Run returns
// an error only when ctx ends or the checkpoint is not valid.
func (r *Runner) Run(ctx context.Context, tk *task.Task, ref *trajectory.Trajectory) (*Result, error) {
	k := r.cfg.k
	env := r.env
	if env == nil && r.rs != nil {
		env = &rollout.Local{RS: r.rs, EpisodeTimeout: r.cfg.EpisodeTimeout, Source: r.cfg.src}
	}
	if env == nil {
		return nil, fmt.Errorf("intervene %s: no resetter and no environment (NewOn)", ref.ID)
	}
	if !ref.ValidCheckpoint(k) || k >= ref.Len() {
		return nil, fmt.Errorf("intervene %s: checkpoint k=%d: expected a valid checkpoint below T=%d", ref.ID, k, ref.Len())
	}
	res := &Result{Task: tk.ID, Trajectory: ref.ID, Policy: r.pol.Name(), Intervener: r.iv.Name(), K: k, T: ref.Len(),
		Budget: r.cfg.budget, MaxShare: r.cfg.maxShare, Rows: make([]Rollout, r.cfg.Rollouts)}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.Concurrency)
	for i := range res.Rows {
		g.Go(func() error {
			row := r.rollout(gctx, env, tk, ref, i)
			res.Rows[i] = row
			if r.cfg.progress != nil {
				r.cfg.progressMu.Lock()
				r.cfg.progress(row)
				r.cfg.progressMu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	res.finish()
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("intervene %s: %w", ref.ID, err)
	}
	return res, nil
}
