package session

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Proc is an exec-mode step a backend started. S is the backend's own exit
// status, which its exec API delivers once; keeping it opaque lets the
// backend finish an exec its own way (containerd deletes it, an engine
// is asked for the code) without a goroutine racing the timeout path for
// the same status.
type Proc[S any] struct {
	// Status delivers the step's status once it ended.
	Status <-chan S
	// Finish turns the status into the exit code once the output is
	// copied, or returns the error of an exec that failed as such.
	Finish func(S) (int, error)
	// Stop ends the exec after its processes were killed (a timeout or a
	// cancelled ctx), waiting briefly for its stream to close.
	Stop func()
	// Close, when not nil, releases the exec's stream when the step is
	// over, however it ended.
	Close func()
	// Started, when not nil, is closed once the step runs (see
	// StartedWriter); the timeout counts from then. Nil: the step runs
	// when Start returns.
	Started <-chan struct{}
}

// startWait bounds the wait for a step to start (Proc.Started); past it
// the timeout counts anyway, as a step that cannot start is stopped the
// same way as one that does not end.
const startWait = 30 * time.Second

// FreshHost is what Fresh needs of a backend's sandbox.
type FreshHost[S any] interface {
	// Start runs req in a new exec, with RBX_STEP=marker in its
	// environment (KillScript finds the step's processes by it) and its
	// output to out. Its error is reported as it is, after "exec in <id>".
	Start(ctx context.Context, marker string, req sandbox.ExecRequest, out io.Writer) (Proc[S], error)
	// Gone explains an exec that failed: the sandbox's *sandbox.GoneError
	// when it is gone, else err in the backend's terms.
	Gone(ctx context.Context, err error) error
	// Ended looks at a step that ended with res.ExitCode: the sandbox's
	// *sandbox.GoneError when the sandbox died with it, else nil, having
	// set res.OOMKilled when the kernel's OOM killer ended it.
	Ended(ctx context.Context, res *sandbox.ExecResult) error
	// Kill kills every process whose environment has RBX_STEP=marker.
	Kill(ctx context.Context, marker string) error
}

// Fresh runs a sandbox's exec-mode steps: each in a new exec the Host
// starts, timed out, cancelled and capped the same way on every backend.
type Fresh[S any] struct {
	// ID is the sandbox's id, for errors and logs.
	ID string
	// OutputCap is how many output bytes a step keeps.
	OutputCap int
	// Log takes a failed kill of a timed-out step.
	Log *slog.Logger
	// Host starts the steps.
	Host FreshHost[S]
}

// Run executes req, whose Timeout is set (see sandbox.ExecRequest.Resolve).
// A step past its timeout is killed and reported TimedOut with
// sandbox.ExitCodeTimeout and the output it printed before; a ctx
// cancelled first stops it the same way, but Run then returns an error
// wrapping ctx.Err() (exit code -1): cancellation is never a timeout.
func (f Fresh[S]) Run(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	start := time.Now()
	out := &sandbox.CapWriter{Limit: f.OutputCap}
	marker := NewMarker()
	pr, err := f.Host.Start(ctx, marker, req, out)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", f.ID, err)
	}
	if pr.Close != nil {
		defer pr.Close()
	}
	if st, ended := awaitStart(ctx, pr); ended { // the exec ended before the step said it ran
		return f.ended(ctx, pr, st, out, start)
	}
	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	var cancelled error
	select {
	case st := <-pr.Status:
		return f.ended(ctx, pr, st, out, start)
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		cancelled = ctx.Err() // the step stops as on a timeout, but it is an error
	}
	out.Freeze()
	f.kill(context.WithoutCancel(ctx), marker)
	pr.Stop()
	res = out.Result(res)
	res.ExitCode, res.Duration = sandbox.ExitCodeTimeout, time.Since(start)
	if cancelled != nil {
		res.ExitCode = -1
		return res, fmt.Errorf("exec in %s: step cancelled: %w", f.ID, cancelled)
	}
	return res, nil
}

// awaitStart waits, when the backend tells (Proc.Started), for the step to
// run, at most startWait; ended is true with the status when the exec
// ended first.
func awaitStart[S any](ctx context.Context, pr Proc[S]) (st S, ended bool) {
	if pr.Started == nil {
		return st, false
	}
	wait := time.NewTimer(startWait)
	defer wait.Stop()
	select {
	case st = <-pr.Status:
		return st, true
	case <-pr.Started:
	case <-wait.C:
	case <-ctx.Done():
	}
	return st, false
}

// ended reports a step whose exec ended with st.
func (f Fresh[S]) ended(ctx context.Context, pr Proc[S], st S, out *sandbox.CapWriter, start time.Time) (sandbox.ExecResult, error) {
	code, err := pr.Finish(st)
	res := out.Result(sandbox.ExecResult{})
	res.ExitCode, res.Duration = code, time.Since(start)
	if err != nil {
		return res, fmt.Errorf("exec in %s: %w", f.ID, f.Host.Gone(ctx, err))
	}
	if err := f.Host.Ended(ctx, &res); err != nil {
		return res, fmt.Errorf("exec in %s: %w", f.ID, err)
	}
	return res, nil
}

// kill kills every process of a stopped step, best effort: the step is
// reported as it ended either way, and a process that escaped the kill is
// what the sandbox's removal ends.
func (f Fresh[S]) kill(ctx context.Context, marker string) {
	ctx, cancel := context.WithTimeout(ctx, killGrace)
	defer cancel()
	if err := f.Host.Kill(ctx, marker); err != nil {
		f.Log.Warn("kill timed-out step", "sandbox", f.ID, "err", err)
	}
}
