// Package evidence scores reward-side evidence — a task's rubric and, when
// asked, its verifier — against a state an episode reached, without
// touching the episode's own sandbox: the state is materialised in a
// scratch sandbox (the reference prefix to k, then the episode's actions
// replayed), scored there, and the scratch sandbox removed. Rollout-time
// intervention (docs/rti.md) uses it to find where a rollout went wrong;
// `rbx serve` exposes it as POST /v1/episodes/{id}/evidence.
package evidence

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// State is a state to score: checkpoint K of Ref (a reference trajectory
// of Task), then Actions, the episode's own actions after K in order.
type State struct {
	Task    *task.Task
	Ref     *trajectory.Trajectory
	K       int
	Actions []trajectory.Step
}

// Result is the evidence at one state and what it cost.
type Result struct {
	// Rubric holds one score per rubric item, in task order; Score is
	// their weighted share of passed items (0 without a rubric).
	Rubric []verifier.RubricScore `json:"rubric"`
	Score  float64                `json:"score"`
	// Verifier is the verifier's verdict, when asked for.
	Verifier *verifier.Result `json:"verifier,omitempty"`
	Cost     Cost             `json:"cost"`
}

// Cost is what scoring a state took.
type Cost struct {
	// Source names how the state was materialised ("replay": a scratch
	// sandbox from the pool, prefix and actions replayed).
	Source string `json:"source"`
	// StepsReplayed counts the steps executed to reach the state:
	// PrefixSteps of the reference plus ActionSteps of the episode (a
	// cached prefix replays fewer).
	StepsReplayed int `json:"steps_replayed"`
	PrefixSteps   int `json:"prefix_steps"`
	ActionSteps   int `json:"action_steps"`
	// Diverged lists the actions (0-based, after K) whose exit code in the
	// scratch sandbox differed from the one recorded live: the scratch
	// state may differ from the episode's there.
	Diverged []int   `json:"diverged,omitempty"`
	ReplayMS float64 `json:"replay_ms"`
	ScoreMS  float64 `json:"score_ms"`
	TotalMS  float64 `json:"total_ms"`
}

// Score materialises st with src, scores the rubric there (and the
// verifier when withVerifier is set: its files are staged in the scratch
// sandbox only) and removes the scratch sandbox.
func Score(ctx context.Context, src Source, st State, withVerifier bool) (*Result, error) {
	start := time.Now()
	sc, err := src.Materialize(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("evidence for %s at k=%d + %d actions: %w", st.Task.ID, st.K, len(st.Actions), err)
	}
	defer sc.Release()
	res := &Result{Cost: sc.Cost}
	res.Cost.ReplayMS = ms(time.Since(start))
	scoreStart := time.Now()
	if withVerifier {
		v, err := verifier.Run(ctx, sc.Sandbox, st.Task)
		if err != nil {
			return nil, fmt.Errorf("evidence for %s: %w", st.Task.ID, err)
		}
		res.Verifier, res.Rubric, res.Score = v, v.Rubric, v.Score
	} else if res.Rubric, res.Score, err = verifier.Rubric(ctx, sc.Sandbox, st.Task); err != nil {
		return nil, fmt.Errorf("evidence for %s: %w", st.Task.ID, err)
	}
	if res.Rubric == nil {
		res.Rubric = []verifier.RubricScore{}
	}
	res.Cost.ScoreMS = ms(time.Since(scoreStart))
	res.Cost.TotalMS = ms(time.Since(start))
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
