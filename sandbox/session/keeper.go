package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// lossTimeout bounds the inspection and clean-up after a lost session,
// which run even when the step's context was cancelled.
const lossTimeout = 30 * time.Second

// killGrace bounds the kill of a live shell that Reopen replaces.
const killGrace = 2 * time.Second

// Conn is one session shell a backend opened: the protocol on it and the
// transport under it.
type Conn interface {
	// Shell is the protocol running on the connection.
	Shell() *Shell
	// ExitStatus asks the backend for the status of the ended shell; ok is
	// false when the backend cannot tell or need not (a supervisor already
	// reported it in the step's result).
	ExitStatus(ctx context.Context) (code int, ok bool)
	// Close hangs up: the shell sees EOF on its stdin and exits.
	Close()
}

// Host is the sandbox a Keeper keeps a session shell in: what only the
// backend knows how to do.
type Host interface {
	// Open starts a session shell and runs the protocol's handshake.
	Open(ctx context.Context) (Conn, error)
	// CheckRunning returns a *sandbox.GoneError when the sandbox no
	// longer runs, nil when it does.
	CheckRunning(ctx context.Context) error
	// SettledGone is CheckRunning after the engine has had a moment to
	// notice a kill (a shell that just died may have taken its container
	// with it).
	SettledGone(ctx context.Context) error
	// Gone explains a failure to open a session: the sandbox's
	// *sandbox.GoneError when it is gone, else err in the backend's terms.
	Gone(ctx context.Context, err error) error
	// Kill kills a process of the sandbox by pid.
	Kill(ctx context.Context, pid string) error
	// MarkOOM sets res.OOMKilled when the kernel's OOM killer ended the step.
	MarkOOM(ctx context.Context, res *sandbox.ExecResult)
}

// Keeper runs a sandbox's session steps on one shell at a time, the same on
// every backend: a shell that exits during a step, or must be killed to
// stop it, is not replaced quietly — the step reports SessionLost and
// later steps fail with a *sandbox.SessionLostError until Reopen. Steps are
// serialised; Close never waits for a running step.
type Keeper struct {
	id   string
	host Host
	log  *slog.Logger

	step sync.Mutex // serialises steps and Reopen
	// lost is set once the shell ended; guarded by step.
	lost *sandbox.SessionLostError

	mu  sync.Mutex // guards cur, which Close takes without step
	cur Conn
}

// NewKeeper returns a keeper for sandbox id; it opens its first shell on
// the first step unless one is installed with Install.
func NewKeeper(id string, h Host, log *slog.Logger) *Keeper {
	return &Keeper{id: id, host: h, log: log}
}

// Install makes c the session shell (a backend that opened one while it
// created the sandbox).
func (k *Keeper) Install(c Conn) { k.swap(c) }

// Active reports whether a session shell is open.
func (k *Keeper) Active() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur != nil
}

// Close hangs up the session shell, if any: a step still running sees EOF
// and the backend's Remove reports the sandbox gone.
func (k *Keeper) Close() {
	if old := k.swap(nil); old != nil {
		old.Close()
	}
}

func (k *Keeper) swap(c Conn) Conn {
	k.mu.Lock()
	defer k.mu.Unlock()
	old := k.cur
	k.cur = c
	return old
}

func (k *Keeper) current() Conn {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur
}

// Run executes req in the session shell, opening one first when none is
// (a sandbox opened by id).
func (k *Keeper) Run(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	k.step.Lock()
	defer k.step.Unlock()
	if k.lost != nil {
		if k.lost.Cause == sandbox.SessionEngineLost {
			// While the engine is still away, that is the news.
			if gerr := k.host.CheckRunning(context.WithoutCancel(ctx)); gerr != nil {
				return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", k.id, gerr)
			}
		}
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", k.id, k.lost)
	}
	cur := k.current()
	if cur == nil {
		if err := k.host.CheckRunning(ctx); err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", k.id, err)
		}
		var err error
		if cur, err = k.host.Open(ctx); err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", k.id, k.host.Gone(ctx, err))
		}
		k.swap(cur)
	}
	res, err := cur.Shell().Run(ctx, req)
	if err == nil {
		k.host.MarkOOM(ctx, &res)
		return res, nil
	}
	if !errors.Is(err, ErrBroken) && !errors.Is(err, ErrExited) {
		return res, fmt.Errorf("exec in %s: %w", k.id, err) // a cancelled ctx, bad input
	}
	res, lerr := k.lose(ctx, cur, res, err)
	if lerr != nil {
		return res, fmt.Errorf("exec in %s: %w", k.id, lerr)
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return res, fmt.Errorf("exec in %s: session lost while the step was cancelled: %w", k.id, cerr)
	}
	return res, nil
}

// lose records the end of the shell old, which Run reported with err. When
// the sandbox itself is gone the loss is the sandbox's (its
// *sandbox.GoneError is returned: OOM, an outside kill, removal);
// otherwise it is the step's, reported in res.SessionLost, or (when the
// shell was gone before the step ran) a *sandbox.SessionLostError.
func (k *Keeper) lose(ctx context.Context, old Conn, res sandbox.ExecResult, err error) (sandbox.ExecResult, error) {
	k.swap(nil)
	defer old.Close()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lossTimeout)
	defer cancel()
	// A sandbox killed from outside takes its shell down with it: tell
	// that apart before blaming the step.
	if gerr := k.host.SettledGone(rctx); gerr != nil {
		var ge *sandbox.GoneError
		if errors.As(gerr, &ge) && ge.Cause == sandbox.CauseEngineUnavailable {
			k.lost = &sandbox.SessionLostError{ID: k.id, Cause: sandbox.SessionEngineLost, ExitCode: -1}
		}
		return res, gerr
	}
	lost := &sandbox.SessionLostError{ID: k.id, Cause: sandbox.SessionStepEnded, ExitCode: -1}
	if errors.Is(err, ErrExitedBefore) { // the step never ran
		lost.Cause, lost.ExitCode = sandbox.SessionKilledOutside, res.ExitCode
		k.lost = lost
		k.log.Info("session lost", "sandbox", k.id, "cause", lost.Cause, "exit", lost.ExitCode)
		return sandbox.ExecResult{}, lost
	}
	if errors.Is(err, ErrBroken) || res.TimedOut {
		lost.Cause = sandbox.SessionTimeoutKill
		pid := old.Shell().PID()
		if kerr := k.host.Kill(rctx, pid); kerr != nil {
			k.log.Warn("kill broken session shell", "sandbox", k.id, "pid", pid, "err", kerr)
		}
	} else if code, ok := old.ExitStatus(rctx); ok {
		res.ExitCode, lost.ExitCode = code, code
	} else {
		lost.ExitCode = res.ExitCode // the supervisor reported the shell's status
	}
	if !res.TimedOut {
		k.host.MarkOOM(rctx, &res) // the OOM killer may have chosen the shell itself
		if res.OOMKilled {
			lost.Cause = sandbox.SessionOOMKilled
		}
	}
	k.log.Info("session lost", "sandbox", k.id, "cause", lost.Cause, "exit", lost.ExitCode)
	k.lost = lost
	res.SessionLost = true
	return res, nil
}

// Reopen discards the session shell, lost or not, and starts a fresh one:
// it begins in the workdir with the sandbox's own environment.
func (k *Keeper) Reopen(ctx context.Context) error {
	k.step.Lock()
	defer k.step.Unlock()
	if old := k.swap(nil); old != nil {
		if k.lost == nil && old.Shell() != nil { // still alive: end it so it cannot run on
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
			_ = k.host.Kill(kctx, old.Shell().PID())
			cancel()
		}
		old.Close()
	}
	c, err := k.host.Open(ctx)
	if err != nil {
		return fmt.Errorf("reopen session in %s: %w", k.id, k.host.Gone(ctx, err))
	}
	k.swap(c)
	k.lost = nil
	k.log.Info("session reopened", "sandbox", k.id)
	return nil
}
