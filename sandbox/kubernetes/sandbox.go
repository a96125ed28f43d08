package kubernetes

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.Sandbox = (*Sandbox)(nil)

// removeTimeout bounds cleanup, which runs even when the caller's context
// was cancelled.
const removeTimeout = 30 * time.Second

// Sandbox is one running pod.
type Sandbox struct {
	rt          *Runtime
	id          string
	workdir     string
	mode        sandbox.Mode
	stepTimeout time.Duration
	outputCap   int
	limits      sandbox.Limits

	// keeper runs session steps on the session shell.
	keeper *session.Keeper
	// mu guards removed and oomSeen.
	mu      sync.Mutex
	removed bool
	// oomSeen is the cgroup's OOM-kill count when last read: 0 for a pod
	// created here, -1 when unknown (opened).
	oomSeen int64

	shell session.ShellProbe // exec-mode shell, detected on first use

	// rec is a recyclable sandbox's state (Spec.Recycle), nil otherwise.
	rec *recycle.State
}

func newSandbox(r *Runtime, name string, spec sandbox.Spec) *Sandbox {
	s := &Sandbox{
		rt: r, id: name, workdir: spec.Workdir, mode: spec.Mode,
		stepTimeout: spec.StepTimeout, outputCap: spec.OutputCap, limits: spec.Limits,
	}
	s.keeper = session.NewKeeper(name, s.keeperHost(), r.cfg.log)
	return s
}

// ID returns the pod name.
func (s *Sandbox) ID() string { return s.id }

// Exec runs req in the sandbox's mode, or in req.Mode when set.
func (s *Sandbox) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	return s.keeper.Exec(ctx, req, s.mode, s.stepTimeout, s.execFresh)
}

// Remove closes the session and deletes the pod at once (no grace
// period). It is idempotent and survives a cancelled ctx.
func (s *Sandbox) Remove(ctx context.Context) error {
	s.mu.Lock()
	s.removed = true
	s.mu.Unlock()
	s.keeper.Close() // a step still running sees EOF, then ErrSandboxGone
	s.rec.Release()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := s.rt.deletePod(ctx, s.id); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", s.id, err)
	}
	return nil
}

// wrap is the prefix of every command the sandbox's own shell runs: the
// ulimits a pod spec cannot express (file size, in 512-byte blocks, and
// open files), failing the command when they cannot be applied rather than
// running it unbounded, and the workdir.
func (s *Sandbox) wrap() string {
	return "ulimit -f " + strconv.FormatInt(s.limits.FileSizeBytes/512, 10) + " && ulimit -n " + strconv.FormatInt(s.limits.NoFile, 10) +
		" || { echo 'rbx: cannot apply the sandbox ulimits' >&2; exit 126; }; cd -- " + session.Quote(s.workdir) + " || exit 126; "
}

// EnterCommand is the kubectl command line that opens shell in the pod,
// for `rbx replay --keep`.
func (s *Sandbox) EnterCommand(shell string) string {
	return "kubectl -n " + s.rt.namespace + " exec -it " + s.id + " -c " + containerName + " -- " + shell
}
