// Package containerd implements sandbox.Runtime on containerd's Go client,
// in a namespace of its own ("rbx" by default) so that Docker's containers
// (namespace "moby") are never seen or touched. Every sandbox is a labelled
// container whose task is tini (PID 1, reaping the zombies background jobs
// leave) over a sleep loop; commands run in one persistent shell started
// through an exec (session mode) or in a fresh exec per command (exec mode).
package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Runtime = (*Runtime)(nil)

// DefaultNamespace is the containerd namespace rbx works in.
const DefaultNamespace = "rbx"

// DefaultSnapshotter is the snapshotter used unless WithSnapshotter says
// otherwise: overlayfs shares image layers between sandboxes; "native"
// (full copies) works on any filesystem but costs a copy per create.
const DefaultSnapshotter = "overlayfs"

// Runtime creates sandboxes as containerd containers.
type Runtime struct {
	cli         *client.Client
	address     string
	namespace   string
	snapshotter string
	log         *slog.Logger
	owner       string
	progress    io.Writer
	images      ImageSource
	initPath    string // tini on the host, bind-mounted as PID 1; empty when absent
	pull        sandbox.PullPolicy

	importMu sync.Mutex         // one import at a time: archives are large
	users    sync.Map           // image digest + user -> *sandbox.UserIDs
	beat     *sandbox.Heartbeat // started by the first Create
	net      cniNet             // the bridge network, loaded on first use

	agent *agentBinary      // nil: Spec.Recycle is refused
	oci   ociRuntime        // WithOCIRuntime's; "" for runc
	fresh recycle.Baselines // recyclable sandboxes' fresh listings, shared by shape
}

type config struct {
	address     string
	namespace   string
	snapshotter string
	log         *slog.Logger
	owner       string
	progress    io.Writer
	images      ImageSource
	pull        sandbox.PullPolicy
	beatEvery   time.Duration
	agent       *agentBinary
	ociRuntime  string
}

// Option configures a Runtime.
type Option func(*config) error

// WithAddress sets the containerd socket (default: the first of
// Candidates that answers).
func WithAddress(addr string) Option {
	return func(c *config) error {
		c.address = addr
		return nil
	}
}

// WithNamespace sets the containerd namespace (default DefaultNamespace).
// Docker's own namespace is refused.
func WithNamespace(ns string) Option {
	return func(c *config) error {
		if ns == "" || ns == "moby" {
			return fmt.Errorf("namespace %q: expected a namespace of rbx's own", ns)
		}
		c.namespace = ns
		return nil
	}
}

// WithSnapshotter sets the snapshotter sandboxes' root filesystems use
// (default DefaultSnapshotter).
func WithSnapshotter(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("snapshotter: empty")
		}
		c.snapshotter = name
		return nil
	}
}

// WithLogger sets the logger for lost sessions and cleanup failures
// (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.log = l
		return nil
	}
}

// WithProgress sets where image imports write their status lines (default:
// discard).
func WithProgress(w io.Writer) Option {
	return func(c *config) error {
		if w == nil {
			return fmt.Errorf("progress writer: nil")
		}
		c.progress = w
		return nil
	}
}

// WithOwner sets the rbx.owner label of created sandboxes (default sandbox.Owner).
func WithOwner(owner string) Option {
	return func(c *config) error {
		if owner == "" {
			return fmt.Errorf("owner: empty")
		}
		c.owner = owner
		return nil
	}
}

// WithHeartbeatEvery sets how often the owner's heartbeat is refreshed
// once the runtime created a sandbox (default
// sandbox.DefaultHeartbeatEvery); see HeartbeatStore.
func WithHeartbeatEvery(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("heartbeat interval %v: must be positive", d)
		}
		c.beatEvery = d
		return nil
	}
}

// WithImageSource sets where images missing from the namespace are
// imported from, and where rbx/* images are built (default: none; only
// images already in the namespace can be used). Close closes it when it is
// an io.Closer.
func WithImageSource(src ImageSource) Option {
	return func(c *config) error {
		c.images = src
		return nil
	}
}

// New connects to containerd: the socket of WithAddress, else the first of
// Candidates that answers.
func New(ctx context.Context, opts ...Option) (*Runtime, error) {
	c := config{
		namespace: DefaultNamespace, snapshotter: DefaultSnapshotter,
		log: slog.New(slog.DiscardHandler), owner: sandbox.Owner, progress: io.Discard, pull: sandbox.PullNever,
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("containerd runtime: %w", err)
		}
	}
	cli, addr, err := connect(ctx, c.address, c.namespace)
	if err != nil {
		return nil, fmt.Errorf("containerd runtime: %w", err)
	}
	r := &Runtime{
		cli: cli, address: addr, namespace: c.namespace, snapshotter: c.snapshotter,
		log: c.log, owner: c.owner, progress: c.progress, images: c.images, initPath: findInit(), pull: c.pull, agent: c.agent,
		oci: ociRuntime{name: c.ociRuntime},
	}
	r.beat = sandbox.NewHeartbeat(r, r.owner, c.beatEvery, r.log)
	if err := checkSnapshotter(ctx, r); err != nil {
		cli.Close()
		return nil, fmt.Errorf("containerd runtime: %w", err)
	}
	if r.initPath == "" {
		// Not a loss of isolation, but zombies of background jobs pile up.
		r.log.Warn("no static tini (docker-init) on this host: sandboxes run without an init reaping zombies")
	}
	return r, nil
}

// Name returns "containerd".
func (r *Runtime) Name() string { return "containerd" }

// Address returns the socket the runtime is connected to.
func (r *Runtime) Address() string { return r.address }

// Snapshotter returns the snapshotter sandboxes use.
func (r *Runtime) Snapshotter() string { return r.snapshotter }

// Client returns the containerd client.
func (r *Runtime) Client() *client.Client { return r.cli }

// closeTimeout bounds what Close asks the engine (the heartbeat's end).
const closeTimeout = 5 * time.Second

// Close closes the client connection and the image source; sandboxes are
// left alone.
func (r *Runtime) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	if err := r.beat.End(ctx, r); err != nil {
		r.log.Warn("end heartbeat", "owner", r.owner, "err", err)
	}
	cancel()
	err := r.cli.Close()
	if c, ok := r.images.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// ctx returns ctx in the runtime's namespace.
func (r *Runtime) ctx(ctx context.Context) context.Context {
	return namespaces.WithNamespace(ctx, r.namespace)
}

// Namespaced returns ctx in the runtime's namespace, for calls on Client.
func (r *Runtime) Namespaced(ctx context.Context) context.Context { return r.ctx(ctx) }
