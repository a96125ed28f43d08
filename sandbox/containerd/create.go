package containerd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/cio"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// leaseTTL is how long what a Create makes (the snapshot) is protected
// from containerd's garbage collector before the container references it.
// A Create that crashes half-way leaves nothing behind past it.
const leaseTTL = 10 * time.Minute

// runtimeName is the shim every sandbox runs on (containerd 1.6+), with
// runc or, under WithOCIRuntime(Runsc), gVisor's runsc (runtimeOptions).
const runtimeName = "io.containerd.runc.v2"

// Create starts a container for spec and, in session mode, its shell. The
// image must be in the namespace or in the image source (imported then);
// nothing is pulled.
func (r *Runtime) Create(ctx context.Context, spec sandbox.Spec) (_ sandbox.Sandbox, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := r.checkRecycle(spec); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if spec.Image == "" {
		return nil, fmt.Errorf("create sandbox: %w: image: empty", sandbox.ErrInvalidSpec)
	}
	if err := r.checkNetwork(spec.Network); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := r.checkOCIRuntime(ctx, spec); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	ctx = r.ctx(ctx)
	r.beat.Start(ctx) // before the first sandbox exists, so gc elsewhere sees a live owner
	img, err := r.image(ctx, spec.Image)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	lctx, done, err := r.cli.WithLease(ctx, leases.WithRandomID(), leases.WithExpiration(leaseTTL))
	if err != nil {
		return nil, fmt.Errorf("create sandbox: lease: %w", engineErr(err))
	}
	defer done(context.WithoutCancel(ctx))
	ids, err := r.userIDs(lctx, img, spec.User)
	if err != nil {
		return nil, fmt.Errorf("create sandbox from %s: %w", spec.Image, err)
	}
	id := newName()
	c, err := r.newContainer(ctx, lctx, img, spec, id, ids)
	if err != nil {
		return nil, err
	}
	sb := newSandbox(r, c, spec)
	sb.imageID = img.Target().Digest.String()
	defer func() {
		if err != nil {
			err = fmt.Errorf("create sandbox %s: %w", id, errors.Join(err, sb.Remove(ctx)))
		}
	}()
	if err := sb.start(lctx, spec.ReadOnlyRoot); err != nil {
		return nil, err
	}
	if spec.Recycle {
		if err := sb.makeWorkdir(lctx); err != nil {
			return nil, fmt.Errorf("make workdir: %w", err)
		}
	}
	if err := sb.setupFiles(lctx, spec, img, ids); err != nil {
		return nil, err
	}
	if spec.Recycle {
		if err := sb.prepareRecycle(lctx, img); err != nil {
			return nil, err
		}
	}
	if spec.Mode == sandbox.ModeSession {
		sess, err := sb.openSession(ctx)
		if err != nil {
			return nil, err
		}
		sb.keeper.Install(sess)
	}
	r.log.Debug("created sandbox", "id", id, "image", spec.Image, "mode", spec.Mode)
	return sb, nil
}

// newContainer creates container id for spec from img, on the bridge
// network when spec asks for it, under the lease of lctx; on failure it
// leaves nothing behind.
func (r *Runtime) newContainer(ctx, lctx context.Context, img client.Image, spec sandbox.Spec, id string, ids *sandbox.UserIDs) (client.Container, error) {
	nsPath := ""
	if spec.Network == sandbox.NetworkBridge {
		var err error
		if nsPath, err = r.setupNetwork(lctx, id); err != nil {
			return nil, fmt.Errorf("create sandbox: network %s: %w", spec.Network, err)
		}
	}
	opts, err := r.specOpts(img, spec, id, ids, nsPath)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", errors.Join(err, r.dropNetwork(ctx, id, nsPath)))
	}
	labels := r.labels(spec)
	if nsPath != "" {
		labels[AnnotationPrefix+annotationNetNS] = nsPath
	}
	c, err := r.cli.NewContainer(lctx, id,
		client.WithImage(img),
		client.WithSnapshotter(r.snapshotter),
		client.WithNewSnapshot(id, img),
		client.WithRuntime(runtimeName, r.runtimeOptions()),
		client.WithNewSpec(opts...),
		client.WithContainerLabels(labels),
	)
	if err != nil {
		r.removeLost(ctx, id)
		return nil, fmt.Errorf("create sandbox from %s: %w", spec.Image, errors.Join(engineErr(err), r.dropNetwork(ctx, id, nsPath)))
	}
	return c, nil
}

// start creates and starts the container's task (no I/O: the main process
// only sleeps) and keeps its process spec for the execs.
func (s *Sandbox) start(ctx context.Context, readOnly bool) error {
	spec, err := s.container.Spec(ctx)
	if err != nil {
		return fmt.Errorf("read spec: %w", engineErr(err))
	}
	s.process = *spec.Process
	t, err := s.container.NewTask(ctx, cio.NullIO)
	if err != nil {
		return fmt.Errorf("create task: %w", engineErr(err))
	}
	s.task = t
	if s.runsc && !readOnly {
		if err := s.keepTmp(); err != nil {
			return err
		}
	}
	if err := t.Start(ctx); err != nil {
		return fmt.Errorf("start task: %w", engineErr(err))
	}
	return nil
}

// setupFiles prepares the filesystem of the started sandbox: a read-only
// root's tmpfs get the image's content there (see seedWritable), a
// writable root's workdir goes to the sandbox's user (see giveWorkdir).
func (s *Sandbox) setupFiles(ctx context.Context, spec sandbox.Spec, img client.Image, ids *sandbox.UserIDs) error {
	switch {
	case spec.ReadOnlyRoot:
		if err := s.seedWritable(ctx, img); err != nil {
			return fmt.Errorf("seed the writable paths: %w", err)
		}
	case ids != nil:
		return s.giveWorkdir(ctx, ids)
	}
	return nil
}

// dropNetwork tears down the network of a sandbox whose create failed
// before its container held it; nsPath "" means none.
func (r *Runtime) dropNetwork(ctx context.Context, id, nsPath string) error {
	if nsPath == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	return r.teardownNetwork(ctx, id, nsPath)
}

// removeLost removes the container id after a failed create: when ctx was
// cancelled, containerd may have created it all the same.
func (r *Runtime) removeLost(ctx context.Context, id string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	c, err := r.cli.LoadContainer(rctx, id)
	if err != nil {
		return
	}
	if err := r.remove(rctx, c); err != nil {
		r.log.Warn("remove container of failed create", "id", id, "err", err)
	}
}

func newName() string {
	return "rbx-" + randomHex(8)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
