// Package docker implements sandbox.Runtime on the Docker Engine API. Every
// sandbox is a labelled container kept alive by a sleep loop; commands run
// either in one persistent shell attached through an exec (session mode) or
// in a fresh exec per command (exec mode).
package docker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/docker/docker/client"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Runtime = (*Runtime)(nil)

// Runtime creates sandboxes as Docker containers.
type Runtime struct {
	cli   *client.Client
	owned bool // the client was built here and is closed by Close
	log   *slog.Logger
	owner string

	progress io.Writer // image build messages
	pull     sandbox.PullPolicy
	builder  imageBuilder

	disk   diskProbe
	owners sync.Map           // image id + user → *fileOwner (see imageOwner)
	beat   *sandbox.Heartbeat // started by the first Create

	agent     *agentBinary      // nil: Spec.Recycle is refused
	baselines baselines         // image id → never-started reader container
	fresh     recycle.Baselines // recyclable sandboxes' fresh listings, shared by shape
	fullWalks bool              // WithScopedRecycle(false)
	oci       ociRuntime        // WithOCIRuntime
}

type config struct {
	cli        *client.Client
	log        *slog.Logger
	owner      string
	progress   io.Writer
	pull       sandbox.PullPolicy
	beatEvery  time.Duration
	agent      *agentBinary
	fullWalks  bool
	ociRuntime string
}

// Option configures a Runtime.
type Option func(*config) error

// WithClient uses cli instead of a client built from the environment
// (default: client.FromEnv with API version negotiation). Close does not
// close a client passed here.
func WithClient(cli *client.Client) Option {
	return func(c *config) error {
		if cli == nil {
			return fmt.Errorf("docker client: nil")
		}
		c.cli = cli
		return nil
	}
}

// WithLogger sets the logger for restarts and cleanup failures (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.log = l
		return nil
	}
}

// WithProgress sets where image builds (EnsureImage, BuildImage) write
// their one-line status and build output, typically stderr (default:
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

// New returns a Runtime. It does not contact the engine; see Available.
func New(opts ...Option) (*Runtime, error) {
	c := config{log: slog.New(slog.NewTextHandler(io.Discard, nil)), owner: sandbox.Owner, progress: io.Discard, pull: sandbox.PullNever}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("docker runtime: %w", err)
		}
	}
	r := &Runtime{cli: c.cli, log: c.log, owner: c.owner, progress: c.progress, pull: c.pull, agent: c.agent, fullWalks: c.fullWalks,
		oci: ociRuntime{name: c.ociRuntime}}
	if r.cli == nil {
		cli, err := newClient()
		if err != nil {
			return nil, fmt.Errorf("docker runtime: %w", err)
		}
		r.cli, r.owned = cli, true
	}
	r.beat = sandbox.NewHeartbeat(r, r.owner, c.beatEvery, r.log)
	return r, nil
}

func newClient() (*client.Client, error) {
	return client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
}

// Available reports whether a Docker engine answers, with an error wrapping
// sandbox.ErrUnavailable when it does not.
func Available(ctx context.Context) error {
	cli, err := newClient()
	if err != nil {
		return fmt.Errorf("docker: %w: %v", sandbox.ErrUnavailable, err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		return fmt.Errorf("docker: %w: %v", sandbox.ErrUnavailable, err)
	}
	return nil
}

// Name returns "docker".
func (r *Runtime) Name() string { return "docker" }

// Client returns the engine client, shared with image builds and benchmarks.
func (r *Runtime) Client() *client.Client { return r.cli }

// closeTimeout bounds what Close asks the engine (the heartbeat's end).
const closeTimeout = 5 * time.Second

// Close closes the engine client if New built it.
func (r *Runtime) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	err := r.beat.End(ctx, r)
	if err != nil {
		r.log.Warn("end heartbeat", "owner", r.owner, "err", err)
	}
	if err := r.removeBaselines(ctx); err != nil {
		r.log.Warn("remove baseline containers", "err", err)
	}
	cancel()
	if !r.owned {
		return nil
	}
	return r.cli.Close()
}
