// Package probe estimates a policy's success rate p̂(k) from checkpoints k
// of a task's reference trajectory and locates its bottleneck (docs/probe.md): each rollout resets a sandbox to k, lets the policy act until it is
// done, and runs the task's verifier. Scanning from the end towards the
// start, the bottleneck is the first checkpoint whose p̂ falls below θ (the
// seed's rule). Modes: sweep (the selected checkpoints) and search (the
// Search-Learn search phase: anchors, then narrowing).
package probe

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Prober runs probes. It is safe for concurrent use.
type Prober struct {
	env rollout.Env
	pol policy.Policy
	cfg config
}

// New returns a Prober resetting with rs (a rollout.Local: its episodes
// carry out the actions, verified in process) and acting with pol.
func New(rs rollout.Resetter, pol policy.Policy, opts ...Option) (*Prober, error) {
	p, err := NewOn(nil, pol, opts...)
	if err != nil {
		return nil, err
	}
	p.env = &rollout.Local{RS: rs, EpisodeTimeout: p.cfg.EpisodeTimeout}
	return p, nil
}

// NewOn returns a Prober whose rollouts act in env's episodes, such as a
// running rbx serve's (rollout.NewServed), with pol. A probe needs only
// Open of env.
func NewOn(env rollout.Env, pol policy.Policy, opts ...Option) (*Prober, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	return &Prober{env: env, pol: pol, cfg: cfg}, nil
}

// Run probes traj, a reference trajectory of tk.
func (p *Prober) Run(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory) (*Result, error) {
	ks, err := p.cfg.checkpoints.Resolve(traj)
	if err != nil {
		return nil, err
	}
	res := &Result{Task: tk.ID, Trajectory: traj.ID, Policy: p.pol.Name(), Mode: p.cfg.mode, T: traj.Len(),
		Rollouts: p.cfg.Rollouts, Threshold: p.cfg.threshold, Confidence: p.cfg.confidence,
		Candidates: len(ks), SweepRollouts: len(ks) * p.cfg.Rollouts}
	if p.cfg.mode == ModeSearch {
		err = p.search(ctx, tk, traj, ks, res)
	} else {
		var pts []Point
		pts, err = p.estimate(ctx, tk, traj, ks, 0)
		res.Points = pts
		res.Rounds = append(res.Rounds, ks)
	}
	res.finish()
	if err != nil {
		return res, fmt.Errorf("probe %s: %w", traj.ID, err)
	}
	return res, nil
}
