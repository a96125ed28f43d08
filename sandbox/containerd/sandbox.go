package containerd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.Sandbox = (*Sandbox)(nil)

// removeTimeout bounds cleanup, which runs even when the caller's context
// was cancelled.
const removeTimeout = 30 * time.Second

// Sandbox is one running containerd container.
type Sandbox struct {
	rt          *Runtime
	id          string
	container   client.Container
	task        client.Task
	process     specs.Process // the main process's, which execs start from
	workdir     string
	mode        sandbox.Mode
	stepTimeout time.Duration
	outputCap   int
	// imageID is the image's content digest (its target), "" when unknown.
	imageID string
	// runsc: the container runs on gVisor (see rootPath).
	runsc bool

	// keeper runs session steps on the session shell.
	keeper *session.Keeper
	// mu guards removed and oomSeen.
	mu      sync.Mutex
	removed bool
	// oomSeen is the cgroup's OOM-kill count when last read: 0 for a
	// container created here, -1 when unknown (opened).
	oomSeen int64

	shell session.ShellProbe // exec-mode shell, detected on first use

	// rec is a recyclable sandbox's state (Spec.Recycle), nil otherwise;
	// img its image, which restores read.
	rec *recycle.State
	img client.Image
}

func newSandbox(r *Runtime, c client.Container, spec sandbox.Spec) *Sandbox {
	s := &Sandbox{
		rt: r, id: c.ID(), container: c, workdir: spec.Workdir, mode: spec.Mode,
		stepTimeout: spec.StepTimeout, outputCap: spec.OutputCap, runsc: r.oci.name == Runsc,
	}
	s.keeper = session.NewKeeper(s.id, s.keeperHost(), r.log)
	return s
}

// ID returns the container id.
func (s *Sandbox) ID() string { return s.id }

// ImageID returns the content digest of the sandbox's image, so that state
// derived from one image is never applied to another under the same name;
// "" when unknown.
func (s *Sandbox) ImageID() string { return s.imageID }

// Exec runs req in the sandbox's mode, or in req.Mode when set.
func (s *Sandbox) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	return s.keeper.Exec(ctx, req, s.mode, s.stepTimeout, s.execFresh)
}

// Remove closes the session, kills the task and deletes the container with
// its snapshot. It is idempotent and survives a cancelled ctx.
func (s *Sandbox) Remove(ctx context.Context) error {
	s.mu.Lock()
	s.removed = true
	s.mu.Unlock()
	s.keeper.Close() // a step still running sees EOF, then ErrSandboxGone
	s.rec.Release()
	ctx, cancel := context.WithTimeout(s.rt.ctx(context.WithoutCancel(ctx)), removeTimeout)
	defer cancel()
	if err := s.rt.remove(ctx, s.container); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove sandbox %s: %w", s.id, engineErr(err))
	}
	return nil
}

// labelRemoving marks a container whose removal has begun, so that a step
// that sees its task killed reports the removal, not a kill (as Docker's
// "removing" state does).
const labelRemoving = "rbx.removing"

// remove kills and deletes c's task, then c and its snapshot, then its
// network (a bridged sandbox's).
func (r *Runtime) remove(ctx context.Context, c client.Container) error {
	labels, err := c.SetLabels(ctx, map[string]string{labelRemoving: "true"})
	if err != nil && cerrdefs.IsNotFound(err) {
		return err
	}
	if t, err := c.Task(ctx, nil); err == nil {
		if err := deleteTask(ctx, t); err != nil {
			return fmt.Errorf("delete task: %w", err)
		}
	} else if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("load task: %w", err)
	}
	if err := c.Delete(ctx, client.WithSnapshotCleanup); err != nil {
		return fmt.Errorf("delete container: %w", err)
	}
	if ns := labels[AnnotationPrefix+annotationNetNS]; ns != "" {
		return r.teardownNetwork(ctx, c.ID(), ns)
	}
	return nil
}

// deleteTask kills and deletes t. A task that already stopped is deleted
// without the kill when the kill fails: runsc answers a kill of a sandbox
// that ended (its Sentry OOM-killed, say) with "sandbox is not running",
// which the runc shim, unlike runc's "container not running", does not
// take for "not found" (RunscWrapper rewrites it; a runsc without the
// wrapper's rewrite still gets its sandboxes removed).
func deleteTask(ctx context.Context, t client.Task) error {
	_, err := t.Delete(ctx, client.WithProcessKill)
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	if st, serr := t.Status(ctx); serr != nil || st.Status != client.Stopped {
		return err
	}
	if _, err := t.Delete(ctx); err != nil && !cerrdefs.IsNotFound(err) {
		return err
	}
	return nil
}
