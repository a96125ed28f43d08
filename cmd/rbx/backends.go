package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// backendOptions are the flags that configure backends.
type backendOptions struct {
	// containerdAddress is --containerd-address: empty means discover
	// (containerd.Candidates).
	containerdAddress string
	// containerdSnapshotter is --containerd-snapshotter: empty means
	// containerd.DefaultSnapshotter.
	containerdSnapshotter string
	// pull is --pull: when task images are pulled (empty: never).
	pull sandbox.PullPolicy
	// kubeconfig and namespace are --kubeconfig and --namespace: empty
	// means $KUBECONFIG, in-cluster, ~/.kube/config, and the context's
	// namespace (kubernetes.DefaultNamespace without one).
	kubeconfig, namespace string
	// agent is the rbx-agent binary sandboxes are recycled with (empty:
	// none, Spec.Recycle is refused); agentInPods gives it to the
	// kubernetes backend too (--recycle on).
	agent       string
	agentInPods bool
	// ociRuntime is --oci-runtime (docker: any runtime the engine has;
	// containerd: runc or runsc; kubernetes: a RuntimeClass).
	ociRuntime string
}

// backends lists the sandbox backends in the order `--runtime auto` tries
// them: Docker, then containerd (auto skips the unisolated local one). This
// is the one place cmd names a backend package: everything else goes
// through sandbox.Runtime and its optional interfaces (ImageStore...).
// Image build messages go to progress.
func backends(log *slog.Logger, progress io.Writer, o backendOptions) []sandbox.Backend {
	if o.pull == "" {
		o.pull = sandbox.PullNever
	}
	newDocker := func() (*docker.Runtime, error) {
		opts := []docker.Option{docker.WithLogger(log), docker.WithProgress(progress), docker.WithPullPolicy(o.pull)}
		if o.agent != "" {
			opts = append(opts, docker.WithAgent(o.agent))
		}
		if o.ociRuntime != "" {
			opts = append(opts, docker.WithOCIRuntime(o.ociRuntime))
		}
		return docker.New(opts...)
	}
	all := []sandbox.Backend{
		{
			Name:       "docker",
			Available:  docker.Available,
			New:        func() (sandbox.Runtime, error) { return newDocker() },
			Configured: func() bool { return os.Getenv("DOCKER_HOST") != "" },
		},
		{
			Name:       "local",
			Unisolated: true, // only by name: --runtime local
			Available:  local.Available,
			New:        func() (sandbox.Runtime, error) { return local.New() },
		},
	}
	// containerd and kubernetes after docker, before local (auto's order).
	return append(all[:1], append(clusterBackends(log, progress, o), all[1:]...)...)
}

// backendNames lists every backend's name, for --runtime's checks.
func backendNames() []string {
	var names []string
	for _, b := range backends(slog.New(slog.DiscardHandler), io.Discard, backendOptions{}) {
		names = append(names, b.Name)
	}
	return names
}

// engineBackends are the backends that build images (sandbox.ImageStore),
// in the order image commands try them: the Docker Engine builds rbx's
// images, which the containerd backend imports when it needs them.
func engineBackends(log *slog.Logger, progress io.Writer) []sandbox.Backend {
	return backends(log, progress, backendOptions{})[:1]
}

// notBuiltIn are stand-ins for backends a build tag left out: still names
// --runtime knows, whose Available and New say what to do.
func notBuiltIn(tag string, names ...string) []sandbox.Backend {
	out := make([]sandbox.Backend, 0, len(names))
	for _, name := range names {
		err := fmt.Errorf("the %s backend is not in this binary (built with -tags %s, as make demo builds it): make build builds every backend", name, tag)
		out = append(out, sandbox.Backend{
			Name:      name,
			Available: func(context.Context) error { return err },
			New:       func() (sandbox.Runtime, error) { return nil, err },
		})
	}
	return out
}
