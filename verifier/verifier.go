// Package verifier computes a task's reward in a sandbox: it copies the
// verifier's files in (only now, so the agent never saw them), runs the
// verify command in a fresh shell, and scores the optional rubric.
package verifier

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// Sandbox is what verification needs of a sandbox: staging the verifier's
// files and running commands.
type Sandbox interface {
	provision.Writer
	Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error)
}

// Result is a verifier's verdict.
type Result struct {
	// Passed is true when the verify command exited 0.
	Passed   bool          `json:"passed"`
	ExitCode int           `json:"exit_code"`
	TimedOut bool          `json:"timed_out,omitempty"`
	Output   string        `json:"output"`
	Duration time.Duration `json:"duration_ns"`
	// Rubric holds one score per rubric item, in task order.
	Rubric []RubricScore `json:"rubric,omitempty"`
	// Score is the weighted share of rubric items that passed (0 with no rubric).
	Score float64 `json:"score"`
}

// RubricScore is the outcome of one rubric item.
type RubricScore struct {
	ID     string  `json:"id"`
	Passed bool    `json:"passed"`
	Weight float64 `json:"weight"`
}

// Run verifies the state of sb against tk.
func Run(ctx context.Context, sb Sandbox, tk *task.Task) (*Result, error) {
	start := time.Now()
	if err := provision.Files(ctx, sb, tk, tk.Verify.Files); err != nil {
		return nil, fmt.Errorf("verify %s: %w", tk.ID, err)
	}
	timeout := tk.VerifyTimeout()
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: tk.Verify.Command, Timeout: timeout, Mode: sandbox.ModeExec})
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", tk.ID, err)
	}
	out := &Result{Passed: res.ExitCode == 0 && !res.TimedOut, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Output: string(res.Output)}
	if out.Rubric, out.Score, err = rubric(ctx, sb, tk, timeout); err != nil {
		return nil, fmt.Errorf("verify %s: %w", tk.ID, err)
	}
	out.Duration = time.Since(start)
	return out, nil
}

// Rubric scores only tk's rubric in sb, without staging the verifier's
// files or running the verify command: the evidence an intervener may see
// mid-rollout (package evidence). Score is the weighted share of passed
// items (0 with no rubric).
func Rubric(ctx context.Context, sb Sandbox, tk *task.Task) ([]RubricScore, float64, error) {
	scores, score, err := rubric(ctx, sb, tk, tk.VerifyTimeout())
	if err != nil {
		return nil, 0, fmt.Errorf("rubric of %s: %w", tk.ID, err)
	}
	return scores, score, nil
}

func rubric(ctx context.Context, sb Sandbox, tk *task.Task, timeout time.Duration) ([]RubricScore, float64, error) {
	var scores []RubricScore
	var got, total float64
	for _, item := range tk.Rubric {
		w := item.Weight
		if w == 0 {
			w = 1
		}
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: item.Command, Timeout: timeout, Mode: sandbox.ModeExec})
		if err != nil {
			return nil, 0, fmt.Errorf("rubric %s: %w", item.ID, err)
		}
		ok := res.ExitCode == 0 && !res.TimedOut
		scores = append(scores, RubricScore{ID: item.ID, Passed: ok, Weight: w})
		total += w
		if ok {
			got += w
		}
	}
	if total == 0 {
		return scores, 0, nil
	}
	return scores, got / total, nil
}
