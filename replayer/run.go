package replayer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Run is one trajectory being replayed into one sandbox. It remembers the
// variables captured so far and the next step to execute, so a replay to k
// can be continued to a later checkpoint (for example with the reference
// suffix). A Run is not safe for concurrent use.
type Run struct {
	r        *Replayer
	sb       Sandbox
	task     *task.Task
	traj     *trajectory.Trajectory
	vars     map[string]string
	services map[string]string
	allow    allowList // the services, parsed
	next     int
	live     int          // actions run by Do
	term     *termSession // the terminal keys steps type into, started on the first
}

// Start begins a replay of traj (a trajectory of tk) into sb at step 0.
func (r *Replayer) Start(sb Sandbox, tk *task.Task, traj *trajectory.Trajectory) *Run {
	services := maps.Clone(tk.Services)
	if services == nil {
		services = map[string]string{}
	}
	for name, url := range r.services {
		services[name] = url
	}
	vars := maps.Clone(traj.Vars)
	if vars == nil {
		vars = map[string]string{}
	}
	return &Run{r: r, sb: sb, task: tk, traj: traj, vars: vars, services: services, allow: newAllowList(services)}
}

// StartAt continues a replay of traj at step next in sb, which the caller
// brought to checkpoint next by other means (the prefix cache restored the
// state a live replay of [0, next) reached), with the variables that
// replay had bound.
func (r *Replayer) StartAt(sb Sandbox, tk *task.Task, traj *trajectory.Trajectory, next int, vars map[string]string) *Run {
	run := r.Start(sb, tk, traj)
	if vars != nil {
		run.vars = maps.Clone(vars)
	}
	run.next = next
	return run
}

// Replay resets sb to checkpoint k: it replays steps [0, k). A divergence is
// returned both in the report and as a *StepError.
func (r *Replayer) Replay(ctx context.Context, sb Sandbox, tk *task.Task, traj *trajectory.Trajectory, k int) (*Report, error) {
	return r.Start(sb, tk, traj).To(ctx, k)
}

// Next is the index of the next step to execute.
func (run *Run) Next() int { return run.next }

// Vars returns a copy of the variables bound so far.
func (run *Run) Vars() map[string]string { return maps.Clone(run.vars) }

// To executes steps [Next(), k) and stops at the first divergence.
func (run *Run) To(ctx context.Context, k int) (*Report, error) {
	if err := CheckCheckpoint(run.traj, k); err != nil {
		return &Report{Task: run.task.ID, Trajectory: run.traj.ID, From: run.next, To: k, T: run.traj.Len()}, err
	}
	return run.Through(ctx, k)
}

// Through is To without the checkpoint rule: k may fall inside a group of
// steps marked "checkpoint": false. It is for callers that look at the
// state between steps (the prefix cache probes every step of the prefix it
// captures) and never hand that state out.
func (run *Run) Through(ctx context.Context, k int) (*Report, error) {
	rep := &Report{Task: run.task.ID, Trajectory: run.traj.ID, From: run.next, To: k, T: run.traj.Len()}
	if k < 0 || k > run.traj.Len() {
		return rep, fmt.Errorf("%w: k = %d: expected 0 ≤ k ≤ %d", ErrCheckpoint, k, run.traj.Len())
	}
	if k < run.next {
		return rep, fmt.Errorf("%w: k = %d: this replay is already at step %d", ErrCheckpoint, k, run.next)
	}
	start := time.Now()
	defer func() {
		rep.Duration = time.Since(start)
		rep.Vars = maps.Clone(run.vars)
	}()
	for run.next < k {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("replay %s to %d: %w", run.traj.ID, k, err)
		}
		res, serr := run.step(ctx, run.next)
		if err := ctx.Err(); errors.Is(err, context.Canceled) {
			// Cancelled mid-step: what the step saw (often a "timeout") says
			// nothing about the trajectory, so it is neither a result nor a
			// divergence.
			return rep, fmt.Errorf("replay %s step %d: %w", run.traj.ID, run.next, err)
		}
		rep.Steps = append(rep.Steps, res)
		if run.r.onStep != nil {
			run.r.onStep(res)
		}
		if serr != nil {
			rep.Divergence = serr
			return rep, serr
		}
		run.next++
	}
	return rep, nil
}

// CheckCheckpoint reports why k is not a state traj may be reset to.
func CheckCheckpoint(traj *trajectory.Trajectory, k int) error {
	t := traj.Len()
	switch {
	case k < 0 || k > t:
		return fmt.Errorf("%w: k = %d: expected 0 ≤ k ≤ %d (the trajectory has %d steps)", ErrCheckpoint, k, t, t)
	case !traj.ValidCheckpoint(k):
		return fmt.Errorf("%w: k = %d: step %d sets \"checkpoint\": false, so no reset may stop right after it", ErrCheckpoint, k, k-1)
	}
	return nil
}

// step executes step i and checks it against its recording.
func (run *Run) step(ctx context.Context, i int) (StepResult, *StepError) {
	s := run.traj.Steps[i]
	res, out, err := run.run(ctx, i, s)
	fail := func(why reason.Reason, expected, got string, err error) (StepResult, *StepError) {
		res.Status = StatusFailed
		if why.IsDivergence() {
			res.Status = StatusDiverged
		}
		return res, &StepError{Index: i, Action: s.Action, Summary: res.Summary, Reason: why,
			Expected: expected, Got: got, Output: res.Output, Err: err}
	}
	if errno, ok := failedAsRecorded(err); ok && expectsFailure(s) {
		// Failed as recorded: the same failure, of the same kind when
		// the recording names one (an edit the file did not allow names
		// none).
		if want := recordedErrno(s); want != 0 && want != errno {
			return fail(reason.Output, "the action refused: "+sandbox.Strerror(want), quoteExcerpt(out.output), nil)
		}
		code := *s.Observation.ExitCode
		res.Expected = &code
		res.Status = StatusOK
		return res, nil
	}
	if kd, ok := errors.AsType[keysDivergence](err); ok {
		res, se := fail(reason.Output, quoteExcerpt(kd.want), quoteExcerpt(kd.got), nil)
		se.Diff = Diff(CompareExact, kd.want, kd.got)
		return res, se
	}
	if err != nil {
		return fail(reasonOf(err), "", "", err)
	}
	if expectsFailure(s) {
		return fail(reason.ExitCode, "the action to fail as recorded ("+quoteExcerpt(s.Observation.Output)+")", "it succeeded", nil)
	}
	if out.lost {
		return fail(reason.SessionLost, "the session shell kept", fmt.Sprintf("the step ended the shell (exit %d)", out.exitCode), nil)
	}
	if out.timedOut && !recordedTimeout(s) {
		return fail(reason.Timeout, "completion within "+out.timeout.String(), "timeout", nil)
	}
	if notRunnable(run.ComparisonFor(s), s, out) {
		return fail(reason.ExitCode, "a command the shell can run (the recording has no exit code)",
			fmt.Sprintf("%d: %s", out.exitCode, quoteExcerpt(lastLine(out.output))), nil)
	}
	if s.Observation != nil {
		if want, ok := expectedCode(s); ok {
			res.Expected = &want
			if want != out.exitCode {
				return fail(reason.ExitCode, fmt.Sprint(want), fmt.Sprint(out.exitCode), nil)
			}
		}
		if out.hasOutput {
			if ok, want := matches(run.ComparisonFor(s), s.Observation, out.output); !ok {
				res, se := fail(reason.Output, want, quoteExcerpt(out.output), nil)
				if s.Observation.OutputSHA256 == "" {
					se.Diff = Diff(run.ComparisonFor(s), s.Observation.Output, out.output)
				}
				return res, se
			}
		}
	} else if s.Action == trajectory.KindHTTP && out.exitCode >= 400 {
		return fail(reason.ExitCode, "a 2xx or 3xx status", fmt.Sprint(out.exitCode), nil)
	}
	if err := run.capture(s, out); err != nil {
		return fail(reason.Action, "", "", err)
	}
	res.Status = StatusOK
	return res, nil
}

// run executes step s as step i and describes what it did.
func (run *Run) run(ctx context.Context, i int, s trajectory.Step) (StepResult, outcome, error) {
	res := StepResult{Index: i, Action: s.Action, Summary: Summary(s)}
	start := time.Now()
	out, err := run.exec(ctx, s)
	res.Duration = time.Since(start)
	res.ExitCode, res.TimedOut, res.Truncated = out.exitCode, out.timedOut, out.truncated
	res.OutputBytes, res.SessionLost = out.bytes, out.lost || errors.Is(err, sandbox.ErrSessionLost)
	res.Output = excerpt(out.output, run.r.excerpt)
	if out.hasOutput {
		res.Digests = digestsOf(out.output)
	}
	return res, out, err
}

// ComparisonFor is the comparison for step s under this run's replayer.
func (run *Run) ComparisonFor(s trajectory.Step) Comparison { return run.r.ComparisonFor(s) }

// ComparisonFor is the comparison for step s: volatile steps never compare
// output; a step's own "compare" wins over the replayer's default.
func (r *Replayer) ComparisonFor(s trajectory.Step) Comparison {
	if s.Volatile {
		return CompareIgnore
	}
	if s.Compare != "" {
		return Comparison(s.Compare)
	}
	return r.compare
}

// expectedCode is the recorded exit code, or the HTTP status of an http step.
func expectedCode(s trajectory.Step) (int, bool) {
	if s.Action == trajectory.KindHTTP {
		return s.Observation.Status, s.Observation.Status != 0
	}
	if s.Observation.ExitCode != nil {
		return *s.Observation.ExitCode, true
	}
	return 0, false
}
