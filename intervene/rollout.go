package intervene

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// errSessionLost ends a turn whose action ended the session shell.
var errSessionLost = errors.New("the action ended the session shell")

// rollout runs rollout i: the policy alone, then, when it failed, the
// evidence scan and one intervention.
func (r *Runner) rollout(ctx context.Context, sc *scanner, tk *task.Task, ref *trajectory.Trajectory, i int) (row Rollout) {
	start := time.Now()
	row = Rollout{Index: i, Seed: r.cfg.seed*1_000_003 + uint64(i), ForkT: -1}
	defer func() { row.MS = ms(time.Since(start)) }()
	acts, v, err := r.episode(ctx, tk, ref, nil, row.Seed, false)
	row.Steps = len(acts)
	if err != nil {
		row.fail(OutcomeError, fmt.Errorf("rollout: %w", err))
		return row
	}
	if v.Passed {
		row.Outcome = OutcomeSuccess
		return row
	}
	scores := make([]float64, len(acts)+1)
	evs := make([]*Evidence, len(acts)+1)
	for t := range scores {
		res, err := sc.at(ctx, acts, t, &row.Cost)
		if err != nil {
			row.fail(OutcomeError, fmt.Errorf("evidence after %d actions: %w", t, err))
			return row
		}
		scores[t], evs[t] = res.Score, &Evidence{Rubric: res.Rubric, Score: res.Score}
	}
	row.Evidence = scores
	// Each further attempt forks budget actions earlier: the evidence
	// points at where progress stopped, the mistake may lie before it.
	for t := ForkPoint(scores); ; t = max(0, t-r.cfg.budget) {
		row.Attempts++
		row.ForkT = t
		final, v, err := r.episode(ctx, tk, ref, acts[:t], row.Seed, true, evs[t])
		if err != nil {
			row.fail(OutcomeError, fmt.Errorf("intervention at t=%d: %w", t, err))
			return row
		}
		if v.Passed || row.Attempts >= r.cfg.attempts || t == 0 {
			row.finishIntervention(final, v.Passed, r.cfg.maxShare)
			row.Trajectory = assemble(tk, ref, r.cfg.k, final, i)
			return row
		}
	}
}

// episode runs one sandbox: reset to k, the inherited actions replayed,
// then (when intervening) the intervener for at most budget actions, then
// the policy until it is done; then the verifier. It returns every action
// after k: the inherited ones with the observations of this replay.
func (r *Runner) episode(ctx context.Context, tk *task.Task, ref *trajectory.Trajectory, inherited []trajectory.Step,
	seed uint64, intervene bool, ev ...*Evidence) ([]trajectory.Step, *verifier.Result, error) {
	ep, err := r.rs.Reset(ctx, tk, ref, r.cfg.k)
	if err != nil {
		return nil, nil, err
	}
	defer r.rs.Release(ep.Sandbox)
	timeout := r.cfg.episode
	if timeout == 0 {
		timeout = tk.EpisodeTimeout()
	}
	ectx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	acts := make([]trajectory.Step, 0, len(inherited))
	for i, a := range inherited {
		obs, err := replayer.Observe(ep.Run.Do(ectx, a))
		if err != nil {
			return acts, nil, fmt.Errorf("replay action %d (%s): %w", i, replayer.Summary(a), err)
		}
		acts = append(acts, record(a, obs, false))
	}
	base := policy.Episode{Task: tk, Trajectory: ref, K: r.cfg.k, Seed: seed}
	limit := r.cfg.maxSteps
	if limit == 0 {
		limit = 4*(ref.Len()-r.cfg.k) + 16
	}
	lost := false
	if intervene {
		e := base
		e.Actions = acts
		e.Intervention = ev[0].intervention(tk, r.cfg.budget)
		got, err := r.turn(ctx, ectx, ep, r.iv, e, r.cfg.budget, true)
		acts = append(acts, got...)
		if lost = errors.Is(err, errSessionLost); err != nil && !lost {
			return acts, nil, fmt.Errorf("intervener %s: %w", r.iv.Name(), err)
		}
	}
	if !lost {
		e := base
		e.Actions = acts
		got, err := r.turn(ctx, ectx, ep, r.pol, e, limit, false)
		acts = append(acts, got...)
		if err != nil && !errors.Is(err, errSessionLost) {
			return acts, nil, fmt.Errorf("policy %s: %w", r.pol.Name(), err)
		}
	}
	vctx, vcancel := context.WithTimeout(ctx, tk.VerifyTimeout())
	defer vcancel()
	v, err := verifier.Run(vctx, ep.Sandbox, tk)
	return acts, v, err
}

// turn lets one agent act until it is done, used limit actions, the
// episode's time ran out (not an error: the verifier judges what was
// reached) or its action ended the session shell (errSessionLost).
func (r *Runner) turn(ctx, ectx context.Context, ep *reset.Episode, pol policy.Policy, e policy.Episode, limit int, intervened bool) ([]trajectory.Step, error) {
	agent, err := pol.Start(ectx, e)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	defer agent.Close()
	var acts []trajectory.Step
	var obs *trajectory.Observation
	for len(acts) < limit {
		a, done, err := agent.Act(ectx, obs)
		if err != nil && ectx.Err() != nil && ctx.Err() == nil {
			return acts, nil
		}
		if err != nil || done {
			return acts, err
		}
		o, err := replayer.Observe(ep.Run.Do(ectx, a))
		if err != nil && ectx.Err() != nil && ctx.Err() == nil {
			return acts, nil
		}
		if err != nil {
			return acts, fmt.Errorf("action %d (%s): %w", len(acts), replayer.Summary(a), err)
		}
		acts = append(acts, record(a, o, intervened))
		if o.SessionLost {
			return acts, errSessionLost
		}
		obs = &o
	}
	return acts, nil
}

// record is an action as the trajectory keeps it.
func record(a trajectory.Step, o trajectory.Observation, intervened bool) trajectory.Step {
	s := actionOf(a)
	s.Observation, s.Intervened = o.Recorded(), intervened
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
