package intervene

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// errSessionLost ends a turn whose action ended the session shell.
var errSessionLost = errors.New("the action ended the session shell")

// rollout runs rollout i: the policy alone, then, when it failed, the
// evidence scan and up to the configured attempts of intervention.
func (r *Runner) rollout(ctx context.Context, env Env, tk *task.Task, ref *trajectory.Trajectory, i int) (row Rollout) {
	start := time.Now()
	row = Rollout{Index: i, Seed: r.cfg.RolloutSeed(i), ForkT: -1}
	defer func() { row.MS = ms(time.Since(start)) }()
	base := policy.Episode{Task: tk, Trajectory: ref, K: r.cfg.k, Seed: row.Seed}
	s, err := env.Open(ctx, tk, ref, r.cfg.k)
	if err != nil {
		row.fail(OutcomeError, fmt.Errorf("rollout: %w", err))
		return row
	}
	defer s.Close()
	acts, passed, err := r.play(ctx, s, base, nil, nil)
	s.Close() // the evidence and the forks need only its record
	row.Steps = len(acts)
	if err != nil {
		row.fail(OutcomeError, fmt.Errorf("rollout: %w", err))
		return row
	}
	if passed {
		row.Outcome = OutcomeSuccess
		return row
	}
	scores := make([]float64, len(acts)+1)
	evs := make([]*Evidence, len(acts)+1)
	for t := range scores {
		res, memoised, err := env.Evidence(ctx, s, acts, t)
		if err != nil {
			row.fail(OutcomeError, fmt.Errorf("evidence after %d actions: %w", t, err))
			return row
		}
		row.Cost.add(res, memoised)
		scores[t], evs[t] = res.Score, &Evidence{Rubric: res.Rubric, Score: res.Score}
	}
	row.Evidence = scores
	// Each further attempt forks budget actions earlier: the evidence
	// points at where progress stopped, the mistake may lie before it.
	for t := ForkPoint(scores); ; t = max(0, t-r.cfg.budget) {
		row.Attempts++
		row.ForkT = t
		final, passed, err := r.intervention(ctx, env, s, base, acts, t, evs[t])
		if err != nil {
			row.fail(OutcomeError, fmt.Errorf("intervention at t=%d: %w", t, err))
			return row
		}
		if passed || row.Attempts >= r.cfg.attempts || t == 0 {
			row.finishIntervention(final, passed, r.cfg.maxShare)
			row.Trajectory = assemble(tk, ref, r.cfg.k, final, i)
			return row
		}
	}
}

// intervention forks parent after its first t actions, lets the
// intervener act with the evidence, hands back to the policy and
// verifies; it returns every action of the fork after k.
func (r *Runner) intervention(ctx context.Context, env Env, parent rollout.Episode, base policy.Episode, acts []trajectory.Step,
	t int, ev *Evidence) ([]trajectory.Step, bool, error) {
	s, inherited, err := env.Fork(ctx, parent, acts, t)
	if err != nil {
		return nil, false, err
	}
	defer s.Close()
	return r.play(ctx, s, base, inherited, ev.intervention(base.Task, r.cfg.budget))
}

// play continues episode s after the actions done: the intervener first
// for at most its budget when iv is set, then the policy until it is
// done; then the verifier. It returns every action after k.
func (r *Runner) play(ctx context.Context, s rollout.Episode, base policy.Episode, done []trajectory.Step, iv *policy.Intervention) ([]trajectory.Step, bool, error) {
	acts := done
	over := false
	if iv != nil {
		e := base
		e.Actions, e.Intervention = acts, iv
		got, err := r.turn(ctx, s, r.iv, e, iv.Budget, true)
		acts = append(acts, got...)
		if over = ended(err); err != nil && !over {
			return acts, false, fmt.Errorf("intervener %s: %w", r.iv.Name(), err)
		}
	}
	if !over {
		e := base
		e.Actions = acts
		got, err := r.turn(ctx, s, r.pol, e, r.cfg.StepLimit(base.Trajectory.Len()-base.K), false)
		acts = append(acts, got...)
		if err != nil && !ended(err) {
			return acts, false, fmt.Errorf("policy %s: %w", r.pol.Name(), err)
		}
	}
	passed, err := s.Verify(ctx)
	return acts, passed, err
}

// ended reports that a turn's error ends the episode's acting part
// without failing it: the verifier judges what was reached.
func ended(err error) bool {
	return errors.Is(err, errSessionLost) || errors.Is(err, rollout.ErrEpisodeOver)
}

// turn lets one agent act until it is done, used limit actions, the
// episode ended (rollout.ErrEpisodeOver: steps or time ran out) or its
// action ended the session shell (errSessionLost).
func (r *Runner) turn(ctx context.Context, s rollout.Episode, pol policy.Policy, e policy.Episode, limit int, intervened bool) ([]trajectory.Step, error) {
	agent, err := pol.Start(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	defer agent.Close()
	var acts []trajectory.Step
	var obs *trajectory.Observation
	for len(acts) < limit {
		a, done, err := agent.Act(ctx, obs)
		if err != nil || done {
			return acts, err
		}
		o, err := s.Do(ctx, a, intervened)
		if errors.Is(err, rollout.ErrEpisodeOver) {
			if o != nil { // it ran, cut by the episode's end
				acts = append(acts, rollout.Record(a, *o, intervened))
			}
			return acts, err
		}
		if err != nil {
			return acts, fmt.Errorf("action %d (%s): %w", len(acts), replayer.Summary(a), err)
		}
		acts = append(acts, rollout.Record(a, *o, intervened))
		if o.SessionLost {
			return acts, errSessionLost
		}
		obs = o
	}
	return acts, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
