package docker

import (
	"context"
	"fmt"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.Sandbox = (*Sandbox)(nil)

// removeTimeout bounds cleanup, which runs even when the caller's context
// was cancelled.
const removeTimeout = 30 * time.Second

// Sandbox is one running container.
type Sandbox struct {
	rt          *Runtime
	id          string
	workdir     string
	mode        sandbox.Mode
	stepTimeout time.Duration
	outputCap   int
	// owner owns the files rbx writes (Spec.User); nil means the engine
	// keeps the archive's root ownership.
	owner *fileOwner
	// roots are where archives may be extracted (a read-only root's
	// writable mounts); nil means anywhere.
	roots []string
	// imageID is the content id of the image the container was created
	// from ("" when unknown).
	imageID string

	// keeper runs session steps on the session shell.
	keeper *session.Keeper
	// removed is set by Remove, so a step it interrupts reports
	// ErrSandboxGone even while the engine still shows the container.
	// Guarded by connMu.
	connMu  sync.Mutex
	removed bool

	shell session.ShellProbe // exec-mode shell, detected on first use

	// oomSeen is the container's OOM-kill count when last read: 0 for a
	// container created here, -1 when unknown (opened). Guarded by oomMu.
	oomMu   sync.Mutex
	oomSeen int64

	// execUser runs every exec but the agent's ("": the container's
	// user). A recyclable sandbox's container runs as the image's user,
	// root for rbx's images (the engine gives a root exec no capability in
	// a container whose user is not root, and the agent needs them), its
	// commands as Spec.User.
	execUser string

	// rec is the fresh state of a recyclable sandbox (Spec.Recycle); nil otherwise.
	rec *recycleState
	// mux talks with a recyclable sandbox's PID 1, the agent; nil otherwise.
	mux *agentMux
}

func newSandbox(r *Runtime, id string, spec sandbox.Spec) *Sandbox {
	s := &Sandbox{
		rt: r, id: id, workdir: spec.Workdir, mode: spec.Mode,
		stepTimeout: spec.StepTimeout, outputCap: spec.OutputCap,
		roots: writableRoots(spec.ReadOnlyRoot, spec.Workdir),
	}
	s.keeper = session.NewKeeper(id, s.keeperHost(), r.log)
	return s
}

// ID returns the container id.
func (s *Sandbox) ID() string { return s.id }

// ImageID returns the content id of the sandbox's image (sha256:...), so
// that state derived from one image is never applied to another under the
// same tag; "" when unknown.
func (s *Sandbox) ImageID() string { return s.imageID }

// Exec runs req in the sandbox's mode, or in req.Mode when set.
func (s *Sandbox) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	return s.keeper.Exec(ctx, req, s.mode, s.stepTimeout, s.execFresh)
}

// Remove closes the session and force-removes the container with its
// anonymous volumes. It is idempotent and survives a cancelled ctx.
func (s *Sandbox) Remove(ctx context.Context) error {
	s.connMu.Lock()
	s.removed = true
	s.connMu.Unlock()
	s.keeper.Close() // a step still running sees EOF, then ErrSandboxGone
	s.releaseRecycle()
	defer s.mux.close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	err := s.rt.cli.ContainerRemove(ctx, s.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	// Conflict: another Remove of the same container is already under way.
	if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		return fmt.Errorf("remove sandbox %s: %w", s.id, engineErr(err))
	}
	return nil
}
