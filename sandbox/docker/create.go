package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// keepAlive replaces the image's entrypoint: a loop of sleeps that works on
// busybox and Debian alike. docker-init (Init) is PID 1 and reaps the
// zombies that background jobs of the session leave behind.
var keepAlive = []string{"/bin/sh", "-c", keepAliveLoop}

const keepAliveLoop = "while :; do sleep 3600; done"

// mainSession is the entrypoint of a session-mode container: the session
// shell is the container's own process, fed through the attached stdin, so
// that no exec (a process spawned by the runtime, the dearest part of a
// reset after create and start) is needed. It is session.Supervisor, which
// reports the shell's exit status with the exit marker, and then keeps the
// container alive, so the loss is reported as the step's doing (not as a
// dead sandbox) and Reopen can start a new session with an exec.
func mainSession() []string {
	return []string{"/bin/sh", "-c", session.Supervisor("exec 3>&-; exec /bin/sh -c '" + keepAliveLoop + "'")}
}

// Create starts a container for spec and, in session mode, its shell. The
// image must exist locally unless the pull policy (WithPullPolicy) fetches it.
func (r *Runtime) Create(ctx context.Context, spec sandbox.Spec) (_ sandbox.Sandbox, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if spec.Image == "" {
		return nil, fmt.Errorf("create sandbox: %w: image: empty", sandbox.ErrInvalidSpec)
	}
	if err := r.checkOCIRuntime(ctx); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := r.checkRecycle(ctx, spec); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	r.beat.Start(ctx) // before the first sandbox exists, so gc elsewhere sees a live owner
	if err := r.pullFor(ctx, spec.Image); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	imageID, owner, err := r.inspectImage(ctx, spec)
	if err != nil {
		return nil, err
	}
	// Our own name lets us find the container even when ctx is cancelled
	// while the engine is still creating it and we never learn its id.
	name := newName()
	cfg := r.containerConfig(spec)
	switch {
	case spec.Recycle:
		// The first session shell is an exec (see startRecyclable); PID 1
		// serves the mux on the container's own streams.
		cfg.Entrypoint = []string{AgentPath, "init", "-mux"}
		cfg.OpenStdin, cfg.AttachStdin, cfg.AttachStdout, cfg.AttachStderr = true, true, true, true
		cfg.User = "" // the image's, root: commands run as Spec.User (see Sandbox.execUser)
	case spec.Mode == sandbox.ModeSession:
		cfg.Entrypoint = mainSession()
		cfg.OpenStdin, cfg.AttachStdin, cfg.AttachStdout, cfg.AttachStderr = true, true, true, true
	}
	created, err := r.createContainer(ctx, spec, cfg, name, owner)
	if err != nil {
		return nil, err
	}
	sb := newSandbox(r, created.ID, spec)
	sb.owner, sb.imageID = owner, imageID
	if spec.Recycle {
		sb.execUser = sandbox.NormalUser(spec.User)
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("create sandbox %s: %w", created.ID, errors.Join(err, sb.Remove(ctx)))
		}
	}()
	var sess *shellConn
	if spec.Mode == sandbox.ModeSession && !spec.Recycle {
		// Attach before start, so the shell's stdin is ours from its first read.
		if sess, err = sb.attachSession(ctx); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				sess.Close()
			}
		}()
	}
	if spec.Recycle {
		// Attached before start: PID 1 reads its first frame from us.
		hj, err := r.cli.ContainerAttach(ctx, created.ID, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
		if err != nil {
			return nil, fmt.Errorf("attach agent: %w", engineErr(err))
		}
		sb.mux = newAgentMux(hj)
	}
	if err := r.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return nil, fmt.Errorf("start: %w", engineErr(err))
	}
	if err := r.setupFiles(ctx, sb, spec, imageID); err != nil {
		return nil, err
	}
	if sess != nil {
		if err := sb.startProtocol(ctx, sess); err != nil {
			return nil, err
		}
		sb.keeper.Install(sess)
	}
	if spec.Recycle {
		if err := sb.startRecyclable(ctx, imageID); err != nil {
			return nil, err
		}
	}
	r.log.Debug("created sandbox", "id", created.ID, "image", spec.Image, "mode", spec.Mode)
	return sb, nil
}

// inspectImage returns the id of spec's image, which must exist, and the
// owner of files for spec.User (nil without one).
func (r *Runtime) inspectImage(ctx context.Context, spec sandbox.Spec) (string, *fileOwner, error) {
	img, err := r.cli.ImageInspect(ctx, spec.Image)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return "", nil, fmt.Errorf("create sandbox: %w: %s", sandbox.ErrImageMissing, spec.Image)
		}
		return "", nil, fmt.Errorf("create sandbox: inspect image %s: %w", spec.Image, engineErr(err))
	}
	if spec.User == "" {
		return img.ID, nil, nil
	}
	owner, err := r.imageOwner(ctx, img.ID, spec.User)
	if err != nil {
		return "", nil, fmt.Errorf("create sandbox from %s: %w", spec.Image, err)
	}
	return img.ID, owner, nil
}

// setupFiles prepares the filesystem of a started sandbox: a read-only
// root's tmpfs get the image's content (see seedTmpfs), a writable root's
// workdir goes to the sandbox's user (see giveWorkdir).
func (r *Runtime) setupFiles(ctx context.Context, sb *Sandbox, spec sandbox.Spec, imageID string) error {
	switch {
	case spec.ReadOnlyRoot:
		return r.seedTmpfs(ctx, imageID, sb.id, sb.roots)
	case sb.owner != nil && spec.Workdir != "/": // never give away "/"
		return r.giveWorkdir(ctx, sb.id, spec.Workdir, sb.owner)
	}
	return nil
}

// createContainer creates the container with the disk bound the engine
// supports: when it refuses the size storage option, the refusal is
// recorded and reported once (see noStorageOpt) and the container is
// created with the file-size bound only, its rbx.disk-bound annotation
// saying so.
func (r *Runtime) createContainer(ctx context.Context, spec sandbox.Spec, cfg *container.Config, name string, owner *fileOwner) (container.CreateResponse, error) {
	bound, err := r.boundFor(ctx, spec)
	if err != nil {
		return container.CreateResponse{}, fmt.Errorf("create sandbox from %s: %w", spec.Image, err)
	}
	for {
		cfg.Labels[AnnotationPrefix+sandbox.AnnotationDiskBound] = string(bound)
		if r.oci.name == Runsc {
			spec.Limits = spec.Limits.OnRunsc()
		}
		hc := hostConfig(spec)
		hc.Runtime = r.oci.name
		applyDiskBound(hc, spec, bound, owner, r.volumeLabels(spec))
		if r.oci.name == Runsc && !spec.ReadOnlyRoot {
			hc.Mounts = append(hc.Mounts, runscTmp(r.volumeLabels(spec)))
		}
		if spec.Recycle {
			noInit := false // the agent is PID 1
			hc.Init = &noInit
			hc.Mounts = append(hc.Mounts, r.agent.mount())
		}
		created, err := r.cli.ContainerCreate(ctx, cfg, hc, nil, nil, name)
		if err == nil {
			return created, nil
		}
		r.removeLost(ctx, name)
		if bound == sandbox.DiskBoundStorage && isStorageOptErr(err) && ctx.Err() == nil {
			r.noStorageOpt(err)
			bound = sandbox.DiskBoundFileSize
			continue
		}
		return container.CreateResponse{}, fmt.Errorf("create sandbox from %s: %w", spec.Image, engineErr(err))
	}
}

func (r *Runtime) containerConfig(spec sandbox.Spec) *container.Config {
	return &container.Config{
		Image:      spec.Image,
		Entrypoint: keepAlive,
		Cmd:        []string{},
		WorkingDir: spec.Workdir, // the engine creates it when missing
		Env:        envList(spec.Env),
		Labels:     r.labels(spec),
		User:       sandbox.NormalUser(spec.User),
	}
}

func hostConfig(spec sandbox.Spec) *container.HostConfig {
	useInit := true
	pids := spec.Limits.Pids
	return &container.HostConfig{
		NetworkMode: container.NetworkMode(spec.Network),
		CapDrop:     []string{"ALL"},
		CapAdd:      append(append([]string(nil), sandbox.DefaultCaps...), spec.CapAdd...),
		SecurityOpt: []string{"no-new-privileges:true"},
		// The session's output is ours alone; the engine need not log it.
		LogConfig: container.LogConfig{Type: "none"},
		Init:      &useInit,
		Resources: container.Resources{
			PidsLimit:  &pids,
			Memory:     spec.Limits.MemoryBytes,
			MemorySwap: spec.Limits.MemoryBytes, // no swap beyond the memory limit
			NanoCPUs:   int64(spec.Limits.CPUs * 1e9),
			Ulimits: []*container.Ulimit{
				{Name: "fsize", Soft: spec.Limits.FileSizeBytes, Hard: spec.Limits.FileSizeBytes},
				{Name: "nofile", Soft: spec.Limits.NoFile, Hard: spec.Limits.NoFile},
			},
		},
	}
}

// removeLost removes a container by name after a failed create. When ctx
// was cancelled the engine may still be creating it, so it retries for a
// moment while the name is unknown.
func (r *Runtime) removeLost(ctx context.Context, name string) {
	tries := 1
	if ctx.Err() != nil {
		tries = 20
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	for i := 0; i < tries; i++ {
		err := r.cli.ContainerRemove(rctx, name, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil {
			return
		}
		if !cerrdefs.IsNotFound(err) {
			r.log.Warn("remove container of failed create", "name", name, "err", err)
			return
		}
		if i+1 < tries {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func newName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "rbx-" + hex.EncodeToString(b[:])
}
