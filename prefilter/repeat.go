package prefilter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// excerptBytes bounds the output excerpts kept in a report.
const excerptBytes = 1024

// runRepeat replays it end to end in a fresh sandbox and runs the task's
// verifier. fatal is set when the engine is gone.
func (r *runner) runRepeat(ctx context.Context, res *reset.Resetter, it *Item) (out Repeat, fatal error) {
	start := time.Now()
	defer func() { out.Duration = time.Since(start) }()
	traj := whole(it.Traj)
	ep, err := res.Reset(ctx, it.Task, traj, traj.Len())
	sb, rep := ep.Sandbox, ep.Report
	if rep != nil {
		for _, s := range rep.Steps {
			out.steps = append(out.steps, stepRun{dur: s.Duration, output: s.Output, exitCode: s.ExitCode, digests: s.Digests})
			if s.Status == replayer.StatusOK {
				out.Reached++
			}
		}
	}
	if err != nil {
		return classify(ctx, out, rep, err)
	}
	defer res.Release(sb)
	v, err := verifier.Run(ctx, sb, it.Task)
	switch {
	case ctx.Err() != nil: // whatever the verifier saw, it was cut short
		out.cancelled = true
	case err != nil:
		out.Reason, out.Failure = reason.Infra, &Failure{Message: err.Error()}
		if fatalErr(err) {
			fatal = err
		}
	case v.TimedOut:
		out.Reason = reason.Timeout
		out.Failure = &Failure{Message: fmt.Sprintf("verifier timed out after %s", it.Task.VerifyTimeout()), Output: tail(v.Output), Failing: FailingTests(v.Output), Network: NetworkEvidence(v.Output)}
	case !v.Passed:
		out.Reason = reason.VerifyFailed
		out.Failure = &Failure{Message: fmt.Sprintf("verifier exited %d", v.ExitCode), Output: tail(v.Output), Failing: FailingTests(v.Output), Network: NetworkEvidence(v.Output)}
	default:
		out.Passed = true
	}
	return out, fatal
}

// whole returns traj such that its full length is a checkpoint: replaying
// to T must be possible even when the last step says "checkpoint": false,
// which only forbids handing out that state for training.
func whole(traj *trajectory.Trajectory) *trajectory.Trajectory {
	if traj.ValidCheckpoint(traj.Len()) {
		return traj
	}
	cp := *traj
	cp.Steps = append([]trajectory.Step(nil), traj.Steps...)
	cp.Steps[len(cp.Steps)-1].Checkpoint = nil
	return &cp
}

// classify turns a failed reset into a repeat's reason and failure.
func classify(ctx context.Context, out Repeat, rep *replayer.Report, err error) (Repeat, error) {
	var se *replayer.StepError
	ran := rep != nil && len(rep.Steps) > 0
	switch {
	case ctx.Err() != nil:
		out.cancelled = true
		return out, nil
	case errors.As(err, &se) && !reason.IsInfra(err):
		out.Reason = se.Reason
		out.Failure = stepFailure(se)
		return out, nil
	case errors.Is(err, context.DeadlineExceeded) && ran:
		out.Reason = reason.Timeout
		out.Failure = &Failure{Message: "episode timeout: " + err.Error()}
		if se != nil {
			out.Failure = stepFailure(se)
			out.Failure.Message = "episode timeout at " + out.Failure.Message
		}
		return out, nil
	case errors.Is(err, sandbox.ErrImageMissing):
		out.Reason, out.Failure = reason.ImageMissing, &Failure{Message: err.Error()}
		return out, nil
	case errors.Is(err, sandbox.ErrPullFailed):
		out.Reason, out.Failure = reason.PullFailed, &Failure{Message: err.Error()}
		return out, nil
	}
	out.Reason, out.Failure = reason.Infra, &Failure{Message: err.Error()}
	if se != nil {
		out.Reason, out.Failure = se.Reason, stepFailure(se)
	}
	if fatalErr(err) {
		return out, err
	}
	return out, nil
}

func stepFailure(se *replayer.StepError) *Failure {
	idx := se.Index
	return &Failure{Step: &idx, Action: string(se.Action), Summary: se.Summary, Expected: se.Expected,
		Got: se.Got, Output: tail(se.Output), Message: se.Error()}
}

// tail keeps the end of s, where errors usually are.
func tail(s string) string {
	if len(s) <= excerptBytes {
		return s
	}
	cut := s[len(s)-excerptBytes:]
	for len(cut) > 0 && cut[0]&0xC0 == 0x80 { // do not start inside a UTF-8 sequence
		cut = cut[1:]
	}
	return "…" + cut
}
