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

// runtimeName is the shim every sandbox runs on (containerd 1.6+).
const runtimeName = "io.containerd.runc.v2"

// Create starts a container for spec and, in session mode, its shell. The
// image must be in the namespace or in the image source (imported then);
// nothing is pulled.
func (r *Runtime) Create(ctx context.Context, spec sandbox.Spec) (_ sandbox.Sandbox, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if spec.Image == "" {
		return nil, fmt.Errorf("create sandbox: %w: image: empty", sandbox.ErrInvalidSpec)
	}
	ctx = r.ctx(ctx)
	img, err := r.image(ctx, spec.Image)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	id := newName()
	opts, err := r.specOpts(img, spec, id)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	lctx, done, err := r.cli.WithLease(ctx, leases.WithRandomID(), leases.WithExpiration(leaseTTL))
	if err != nil {
		return nil, fmt.Errorf("create sandbox: lease: %w", engineErr(err))
	}
	defer done(context.WithoutCancel(ctx))
	c, err := r.cli.NewContainer(lctx, id,
		client.WithImage(img),
		client.WithSnapshotter(r.snapshotter),
		client.WithNewSnapshot(id, img),
		client.WithRuntime(runtimeName, nil),
		client.WithNewSpec(opts...),
		client.WithContainerLabels(r.labels(spec)),
	)
	if err != nil {
		r.removeLost(ctx, id)
		return nil, fmt.Errorf("create sandbox from %s: %w", spec.Image, engineErr(err))
	}
	sb := newSandbox(r, c, spec)
	sb.imageID = img.Target().Digest.String()
	defer func() {
		if err != nil {
			err = fmt.Errorf("create sandbox %s: %w", id, errors.Join(err, sb.Remove(ctx)))
		}
	}()
	if err := sb.start(lctx); err != nil {
		return nil, err
	}
	if spec.Mode == sandbox.ModeSession {
		sess, err := sb.openSession(ctx)
		if err != nil {
			return nil, err
		}
		sb.sess = sess
	}
	r.log.Debug("created sandbox", "id", id, "image", spec.Image, "mode", spec.Mode)
	return sb, nil
}

// start creates and starts the container's task (no I/O: the main process
// only sleeps) and keeps its process spec for the execs.
func (s *Sandbox) start(ctx context.Context) error {
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
	if err := t.Start(ctx); err != nil {
		return fmt.Errorf("start task: %w", engineErr(err))
	}
	return nil
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
