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

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Resetter is what the loop needs of reset.Resetter.
type Resetter interface {
	Reset(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (*reset.Episode, error)
	Release(sb sandbox.Sandbox)
}

// Runner runs the intervention loop. It is safe for concurrent use.
type Runner struct {
	rs  Resetter
	pol policy.Policy
	iv  policy.Policy
	cfg config
}

// New returns a Runner resetting with rs (nil with WithServer), rolling
// out pol and intervening with iv.
func New(rs Resetter, pol, iv policy.Policy, opts ...Option) (*Runner, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.src == nil && rs != nil {
		cfg.src = evidence.Replay{RS: rs}
	}
	return &Runner{rs: rs, pol: pol, iv: iv, cfg: cfg}, nil
}

// Run rolls pol out from checkpoint k of ref, a reference trajectory of
// tk, and intervenes in every rollout that fails. Rollouts that could not
// be run (a reset or sandbox failure) are counted as errors; Run returns
// an error only when ctx ends or the checkpoint is not valid.
func (r *Runner) Run(ctx context.Context, tk *task.Task, ref *trajectory.Trajectory) (*Result, error) {
	k := r.cfg.k
	if r.rs == nil && r.cfg.client == nil {
		return nil, fmt.Errorf("intervene %s: no resetter and no server (WithServer)", ref.ID)
	}
	if !ref.ValidCheckpoint(k) || k >= ref.Len() {
		return nil, fmt.Errorf("intervene %s: checkpoint k=%d: expected a valid checkpoint below T=%d", ref.ID, k, ref.Len())
	}
	res := &Result{Task: tk.ID, Trajectory: ref.ID, Policy: r.pol.Name(), Intervener: r.iv.Name(), K: k, T: ref.Len(),
		Budget: r.cfg.budget, MaxShare: r.cfg.maxShare, Rows: make([]Rollout, r.cfg.rollouts)}
	be := r.backend(tk, ref)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.concurrency)
	for i := range res.Rows {
		g.Go(func() error {
			row := r.rollout(gctx, be, tk, ref, i)
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

// backend is where the run's episodes live: an rbx serve (WithServer) or
// the Runner's resetter.
func (r *Runner) backend(tk *task.Task, ref *trajectory.Trajectory) backend {
	if r.cfg.client != nil {
		return &served{c: r.cfg.client, task: tk.ID, k: r.cfg.k}
	}
	timeout := r.cfg.episode
	if timeout == 0 {
		timeout = tk.EpisodeTimeout()
	}
	return &local{rs: r.rs, sc: newScanner(r.cfg.src, tk, ref, r.cfg.k), tk: tk, ref: ref, k: r.cfg.k, timeout: timeout}
}
