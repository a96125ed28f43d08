// Package kubernetes implements sandbox.Runtime on a Kubernetes cluster
// through client-go: one pod per sandbox from the task's image, commands run
// through the API's exec (WebSocket, SPDY as fallback) in one persistent
// shell (session mode) or a fresh exec per command (exec mode), files go in
// and out through exec streams. Pods carry the rbx.* labels, so List, Open,
// Remove and `rbx gc` select them with a label selector.
package kubernetes

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Runtime = (*Runtime)(nil)

// DefaultNamespace is the namespace sandboxes are created in unless
// WithNamespace, the kubeconfig's context or the in-cluster service account
// says otherwise.
const DefaultNamespace = "rbx"

// DefaultToolsImage holds the static busybox copied into every pod by its
// tools sidecar (see tools.go): rbx's own busybox image.
const DefaultToolsImage = "rbx/busybox:latest"

// DefaultStartTimeout bounds how long Create waits for a pod to run when
// its status shows no failure (a slow pull, a busy node).
const DefaultStartTimeout = 3 * time.Minute

// Runtime creates sandboxes as pods in one namespace.
type Runtime struct {
	cs        k8s.Interface
	rest      *rest.Config
	namespace string
	host      string
	cfg       config
	beat      *sandbox.Heartbeat // started by the first Create
	fresh     recycle.Baselines  // recyclable sandboxes' fresh listings, shared by shape
	rcCheck   runtimeClassCheck  // WithRuntimeClass's, on the first Create
}

type config struct {
	kubeconfig   string
	context      string
	namespace    string
	restConfig   *rest.Config
	log          *slog.Logger
	owner        string
	pull         sandbox.PullPolicy
	toolsImage   string
	startTimeout time.Duration
	requests     Requests
	progress     io.Writer
	beatEvery    time.Duration
	agentImage   string // "": Spec.Recycle is refused
	runtimeClass string // "": the node's default handler
	// WithOwnerPod's pod, nil without.
	ownerPod *ownerPod
}

// Requests are the resources each pod requests from the scheduler; the
// sandbox's Limits are its limits. Small requests pack many mostly idle
// sandboxes on a node; requests equal to the limits (WithRequests) give
// each a guaranteed share.
type Requests struct {
	CPUMillis   int64
	MemoryBytes int64
}

// DefaultRequests are what a sandbox requests unless WithRequests says
// otherwise: a tenth of a core and 64 MiB.
var DefaultRequests = Requests{CPUMillis: 100, MemoryBytes: 64 << 20}

// Option configures a Runtime.
type Option func(*config) error

// WithKubeconfig sets the kubeconfig file (default: $KUBECONFIG, else the
// in-cluster service account, else ~/.kube/config).
func WithKubeconfig(path string) Option {
	return func(c *config) error { c.kubeconfig = path; return nil }
}

// WithContext sets the kubeconfig context (default: its current context).
func WithContext(name string) Option {
	return func(c *config) error { c.context = name; return nil }
}

// WithRESTConfig uses cfg as it is instead of loading a kubeconfig.
func WithRESTConfig(cfg *rest.Config) Option {
	return func(c *config) error {
		if cfg == nil {
			return fmt.Errorf("rest config: nil")
		}
		c.restConfig = cfg
		return nil
	}
}

// WithNamespace sets the namespace of the sandboxes (default: the
// kubeconfig context's, the service account's in a cluster, else
// DefaultNamespace).
func WithNamespace(ns string) Option {
	return func(c *config) error {
		if ns != "" && !sandbox.ValidLabelValue(ns) {
			return fmt.Errorf("namespace %q: expected a DNS label", ns)
		}
		c.namespace = ns
		return nil
	}
}

// WithLogger sets the logger for lost sessions and cleanup failures
// (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

// WithProgress sets where slow pod starts are reported (default: discard).
func WithProgress(w io.Writer) Option {
	return func(c *config) error {
		if w == nil {
			return fmt.Errorf("progress writer: nil")
		}
		c.progress = w
		return nil
	}
}

// WithOwner sets the rbx.owner label of created pods (default sandbox.Owner).
func WithOwner(owner string) Option {
	return func(c *config) error {
		if owner == "" || !sandbox.ValidLabelValue(owner) {
			return fmt.Errorf("owner %q: expected a label value", owner)
		}
		c.owner = owner
		return nil
	}
}

// WithPullPolicy sets the pods' imagePullPolicy (default sandbox.PullNever:
// the image must be on the node): never → Never, missing → IfNotPresent,
// always → Always. rbx/* images are never pulled; name them by a registry
// reference to have the nodes pull them.
func WithPullPolicy(p sandbox.PullPolicy) Option {
	return func(c *config) error {
		if _, err := sandbox.ParsePullPolicy(string(p)); err != nil {
			return err
		}
		c.pull = p
		return nil
	}
}

// WithToolsImage sets the image whose static /bin/busybox the tools
// sidecar copies into each pod (default DefaultToolsImage).
func WithToolsImage(ref string) Option {
	return func(c *config) error {
		if ref == "" {
			return fmt.Errorf("tools image: empty")
		}
		c.toolsImage = ref
		return nil
	}
}

// WithAgent sets the static rbx-agent binary (see recycle.FindAgent) that
// recyclable pods (Spec.Recycle) run as their sandbox's PID 1 and recycle
// with (default: none, and Spec.Recycle is refused with
// sandbox.ErrUnsupported). A pod gets it from the agent image
// recycle.AgentImageRef names (rbx/agent:<sha256 prefix>: `rbx images
// build rbx/agent` makes it from the same binary; load it on the nodes as
// rbx's other images, or push it and name it with WithAgentImage).
func WithAgent(path string) Option {
	return func(c *config) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		c.agentImage = recycle.AgentImageRef(data)
		return nil
	}
}

// WithAgentImage sets the agent image by name, for an agent image pushed
// to a registry the nodes pull from (see WithAgent).
func WithAgentImage(ref string) Option {
	return func(c *config) error {
		if ref == "" {
			return fmt.Errorf("agent image: empty")
		}
		c.agentImage = ref
		return nil
	}
}

// WithStartTimeout bounds the wait for a pod to run (default
// DefaultStartTimeout); failures the pod status shows end it sooner.
func WithStartTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("start timeout %v: expected > 0", d)
		}
		c.startTimeout = d
		return nil
	}
}

// WithRequests sets what each pod requests from the scheduler (default
// DefaultRequests).
func WithRequests(r Requests) Option {
	return func(c *config) error {
		if r.CPUMillis < 0 || r.MemoryBytes < 0 {
			return fmt.Errorf("requests %+v: expected ≥ 0", r)
		}
		c.requests = r
		return nil
	}
}

// WithHeartbeatEvery sets how often the owner's lease is renewed once the
// runtime created a sandbox (default sandbox.DefaultHeartbeatEvery); see
// HeartbeatStore.
func WithHeartbeatEvery(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("heartbeat interval %v: must be positive", d)
		}
		c.beatEvery = d
		return nil
	}
}

// New connects to the cluster and checks that the namespace exists.
func New(ctx context.Context, opts ...Option) (*Runtime, error) {
	c := config{
		log: slog.New(slog.DiscardHandler), owner: sandbox.Owner, pull: sandbox.PullNever,
		toolsImage: DefaultToolsImage, startTimeout: DefaultStartTimeout, requests: DefaultRequests, progress: io.Discard,
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("kubernetes runtime: %w", err)
		}
	}
	// client-go reports through klog, to stderr by default: what it says
	// about exec streams rbx closed on purpose ("use of closed network
	// connection") would land in the CLI's output. klog is per process, so
	// the last runtime's logger takes it.
	klog.SetSlogLogger(c.log)
	rc, ns, err := loadConfig(c)
	if err != nil {
		return nil, fmt.Errorf("kubernetes runtime: %w", err)
	}
	cs, err := k8s.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes runtime: %w", err)
	}
	r := &Runtime{cs: cs, rest: rc, namespace: ns, host: rc.Host, cfg: c}
	r.beat = sandbox.NewHeartbeat(r, c.owner, c.beatEvery, c.log)
	if err := r.ping(ctx); err != nil {
		return nil, fmt.Errorf("kubernetes runtime: %w", err)
	}
	// Said once, not silently: a pod always has a network interface, and
	// "none" holds only where a NetworkPolicy is enforced.
	c.log.Warn("kubernetes: sandboxes with network none rely on a NetworkPolicy selecting rbx.network=none " +
		"(deploy/kubernetes/networkpolicy.yaml); rbx cannot check that the cluster's network plugin enforces it")
	return r, nil
}

// Name returns "kubernetes".
func (r *Runtime) Name() string { return "kubernetes" }

// Namespace returns the namespace sandboxes live in.
func (r *Runtime) Namespace() string { return r.namespace }

// Clientset returns the client, for tests and tools.
func (r *Runtime) Clientset() k8s.Interface { return r.cs }

// closeTimeout bounds what Close asks the API (the heartbeat's end).
const closeTimeout = 5 * time.Second

// Close ends the owner's heartbeat, deleting its lease when the owner has
// no pod left; client-go's connections are pooled per process. Pods are
// left alone.
func (r *Runtime) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := r.beat.End(ctx, r); err != nil {
		r.cfg.log.Warn("end heartbeat", "owner", r.cfg.owner, "err", err)
	}
	return nil
}
