package intervene

import (
	"fmt"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// Outcomes of a rollout.
const (
	// OutcomeSuccess: the policy succeeded on its own (on-policy data; no
	// intervention).
	OutcomeSuccess = "success"
	// OutcomeRescued: the policy failed, and the intervened trajectory
	// passed the verifier.
	OutcomeRescued = "rescued"
	// OutcomeNotRescued: the intervened trajectory failed too.
	OutcomeNotRescued = "not_rescued"
	// OutcomeError: a reset, sandbox or agent failure left no verdict.
	OutcomeError = "error"
)

// Rollout is one rollout's row.
type Rollout struct {
	Index   int    `json:"rollout"`
	Seed    uint64 `json:"seed"`
	Outcome string `json:"outcome"`
	// Steps counts the policy's actions in its own rollout.
	Steps int `json:"steps"`
	// Evidence is the rubric score after each prefix of the failed
	// rollout (index t: after its first t actions).
	Evidence []float64 `json:"evidence,omitempty"`
	// ForkT is how many of the rollout's actions the intervened
	// trajectory kept (-1: no intervention); Attempts counts the
	// interventions tried (each further one forks earlier).
	ForkT    int `json:"fork_t"`
	Attempts int `json:"attempts,omitempty"`
	// IntervenerSteps counts the intervener's actions; Mask flags each
	// action of the intervened trajectory (after k) chosen by it.
	IntervenerSteps int    `json:"intervener_steps"`
	Mask            []bool `json:"mask,omitempty"`
	// Share and TokenShare are the intervened shares of the intervened
	// trajectory's actions and of their tokens (0 when no tokens were
	// counted); ShiftExceeded is either above the threshold.
	Share         float64 `json:"intervened_share"`
	Tokens        int     `json:"intervened_tokens"`
	TokenShare    float64 `json:"intervened_token_share"`
	ShiftExceeded bool    `json:"shift_exceeded"`
	// Kept: rescued and within the shift filter (what a trainer gets).
	Kept  bool         `json:"kept"`
	Error string       `json:"error,omitempty"`
	Cost  EvidenceCost `json:"evidence_cost"`
	MS    float64      `json:"ms"`
	// Trajectory is the intervened trajectory (reference prefix, then the
	// actions with their intervened flags), for rescued rollouts.
	Trajectory *trajectory.Trajectory `json:"-"`
}

func (row *Rollout) fail(outcome string, err error) {
	row.Outcome, row.Error = outcome, err.Error()
}

// finishIntervention fills the row from the intervened trajectory's
// actions and verdict.
func (row *Rollout) finishIntervention(acts []trajectory.Step, passed bool, maxShare float64) {
	row.Outcome = OutcomeNotRescued
	if passed {
		row.Outcome = OutcomeRescued
	}
	row.Mask = make([]bool, len(acts))
	total := 0
	for i, a := range acts {
		row.Mask[i] = a.Intervened
		total += a.Tokens
		if a.Intervened {
			row.IntervenerSteps++
			row.Tokens += a.Tokens
		}
	}
	if len(acts) > 0 {
		row.Share = float64(row.IntervenerSteps) / float64(len(acts))
	}
	if total > 0 {
		row.TokenShare = float64(row.Tokens) / float64(total)
	}
	row.ShiftExceeded = row.Share > maxShare || row.TokenShare > maxShare
	row.Kept = passed && !row.ShiftExceeded
}

// Evidence is the rubric at one state.
type Evidence struct {
	Rubric []verifier.RubricScore
	Score  float64
}

// intervention is the evidence as the intervener sees it: each rubric
// item's check next to its verdict.
func (e *Evidence) intervention(tk *task.Task, budget int) *policy.Intervention {
	iv := &policy.Intervention{Score: e.Score, Budget: budget}
	for i, r := range e.Rubric {
		cmd := ""
		if i < len(tk.Rubric) {
			cmd = tk.Rubric[i].Command
		}
		iv.Rubric = append(iv.Rubric, policy.RubricEvidence{ID: r.ID, Command: cmd, Weight: r.Weight, Passed: r.Passed})
	}
	return iv
}

// assemble is the intervened trajectory: the reference prefix to k (the
// reset state, prompt to a trainer), then the actions.
func assemble(tk *task.Task, ref *trajectory.Trajectory, k int, acts []trajectory.Step, i int) *trajectory.Trajectory {
	steps := append(append([]trajectory.Step(nil), ref.Steps[:k]...), acts...)
	return &trajectory.Trajectory{ID: fmt.Sprintf("%s-rti-%d", ref.ID, i), Task: tk.ID, Vars: ref.Vars, Messages: ref.Messages, Steps: steps}
}

// Result is a run's outcome.
type Result struct {
	Task       string  `json:"task"`
	Trajectory string  `json:"trajectory"`
	Policy     string  `json:"policy"`
	Intervener string  `json:"intervener"`
	K          int     `json:"k"`
	T          int     `json:"steps_total"`
	Budget     int     `json:"budget"`
	MaxShare   float64 `json:"max_share"`
	// Counts: Failed = Rescued + NotRescued (errors apart); Dropped are
	// rescued trajectories over the shift filter; Kept = Rescued − Dropped.
	Rollouts   int `json:"rollouts"`
	Succeeded  int `json:"succeeded"`
	Failed     int `json:"failed"`
	Rescued    int `json:"rescued"`
	NotRescued int `json:"not_rescued"`
	Dropped    int `json:"dropped"`
	Kept       int `json:"kept"`
	Errors     int `json:"errors"`
	// RescueRate is Rescued / Failed (0 with no failure).
	RescueRate float64   `json:"rescue_rate"`
	Rows       []Rollout `json:"rollouts_detail"`
}

func (r *Result) finish() {
	r.Rollouts = len(r.Rows)
	for _, row := range r.Rows {
		switch row.Outcome {
		case OutcomeSuccess:
			r.Succeeded++
		case OutcomeRescued:
			r.Failed++
			r.Rescued++
			if row.ShiftExceeded {
				r.Dropped++
			} else {
				r.Kept++
			}
		case OutcomeNotRescued:
			r.Failed++
			r.NotRescued++
		default:
			r.Errors++
		}
	}
	if r.Failed > 0 {
		r.RescueRate = float64(r.Rescued) / float64(r.Failed)
	}
}
