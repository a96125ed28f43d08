package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// runtimeFlags are the flags every command that creates sandboxes shares.
type runtimeFlags struct {
	name              string
	buildImage        bool
	containerdAddress string
	containerdSnap    string
	pull              string
	kubeconfig        string
	namespace         string
	// agent is set by commands that recycle sandboxes (serve): the
	// rbx-agent binary the backends prove sandboxes fresh with;
	// agentInPods (--recycle on) gives it to the kubernetes backend too.
	agent       string
	agentInPods bool
	// admission is the operator's policy over what tasks may ask for.
	admission admissionFlags
	// ociRuntime is --oci-runtime: the engine's OCI runtime sandboxes run
	// on (runsc: gVisor); empty for the engine's default.
	ociRuntime string
}

func (f *runtimeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "runtime", "auto", "sandbox backend: auto (an isolating engine: docker, else containerd; fails, exit 5, when none answers), docker, containerd, kubernetes (pods; by name only), or local (plain host processes, NOT isolated)")
	cmd.Flags().StringVar(&f.containerdAddress, "containerd-address", "", containerdAddressUsage)
	cmd.Flags().StringVar(&f.containerdSnap, "containerd-snapshotter", "", containerdSnapshotterUsage)
	f.registerKubernetes(cmd)
	f.admission.register(cmd)
	cmd.Flags().StringVar(&f.ociRuntime, "oci-runtime", "", "the engine's OCI runtime every sandbox runs on, e.g. runsc (gVisor: a second kernel between the policy and the host; docs/isolation.md); docker (an engine-registered runtime), containerd (runc or runsc), kubernetes (the RuntimeClass of that name); default the engine's (runc)")
	cmd.Flags().StringVar(&f.pull, "pull", string(sandbox.PullMissing), "when to pull a task's image from its registry (docker, containerd; kubernetes: the pods' imagePullPolicy): never, missing or always; credentials from ~/.docker/config.json (kubernetes: the cluster's)")
	cmd.Flags().BoolVar(&f.buildImage, "build-images", true, "build a missing rbx/* base image before use")
}

// pullPolicy is --pull; never for commands without the flag (gc), which
// create nothing.
func (f runtimeFlags) pullPolicy() (sandbox.PullPolicy, error) {
	if f.pull == "" {
		return sandbox.PullNever, nil
	}
	p, err := sandbox.ParsePullPolicy(f.pull)
	if err != nil {
		return "", usageError("--pull: %v", err)
	}
	return p, nil
}

// openRuntime returns the chosen backend. "auto" takes the first isolating
// backend that answers (see backends) and never the local one: policy
// commands are untrusted, so running them as host processes must be asked
// for with --runtime local, not be the side effect of an engine blip.
func openRuntime(ctx context.Context, f runtimeFlags, errOut io.Writer, log *slog.Logger) (sandbox.Runtime, error) {
	rt, err := openBackend(ctx, f, errOut, log)
	if err == nil && f.ociRuntime != "" && !slices.Contains(ociRuntimeBackends, rt.Name()) {
		rt.Close()
		return nil, usageError("--oci-runtime %s: only the %s runtimes take it, not %s", f.ociRuntime, strings.Join(ociRuntimeBackends, ", "), rt.Name())
	}
	return rt, err
}

// ociRuntimeBackends are the backends --oci-runtime configures.
var ociRuntimeBackends = []string{"docker", "containerd", "kubernetes"}

// openBackend is openRuntime's choice of backend.
func openBackend(ctx context.Context, f runtimeFlags, errOut io.Writer, log *slog.Logger) (sandbox.Runtime, error) {
	pull, err := f.pullPolicy()
	if err != nil {
		return nil, err
	}
	all := backends(log, errOut, backendOptions{containerdAddress: f.containerdAddress, containerdSnapshotter: f.containerdSnap, pull: pull,
		kubeconfig: f.kubeconfig, namespace: f.namespace, agent: f.agent, agentInPods: f.agentInPods, ociRuntime: f.ociRuntime})
	switch f.name {
	case "auto", "":
		// docker.Available bounds its own probe (3 s).
		rt, skipped, err := sandbox.Detect(ctx, autoBackends(all)...)
		if err != nil {
			return nil, fmt.Errorf("--runtime auto: %w; rbx never falls back to running commands as host processes: "+
				"start the engine (or point DOCKER_HOST or --containerd-address at it), or pass --runtime local to run them unisolated on this host", err)
		}
		for _, s := range skipped {
			fmt.Fprintf(errOut, "warning: runtime %s did not answer (%v); using the %s runtime\n", s.Name, s.Err, rt.Name())
		}
		return rt, nil
	}
	if slices.Contains(backendNames(), f.name) {
		return sandbox.Open(ctx, f.name, all...)
	}
	return nil, usageError("--runtime %q: expected auto, %s", f.name, strings.Join(backendNames(), ", "))
}

// ensureImage builds a missing rbx/* recipe image on a runtime that keeps
// images, so that a first `rbx replay` on a fresh machine just works.
func ensureImage(ctx context.Context, rt sandbox.Runtime, f runtimeFlags, image string) error {
	store, ok := rt.(sandbox.ImageStore)
	if !ok || image == "" {
		return nil
	}
	if _, known := images.Lookup(image); !known || !f.buildImage {
		return nil
	}
	if _, err := store.EnsureImage(ctx, image); err != nil {
		return fmt.Errorf("build image %s: %w", image, err)
	}
	return nil
}

// removeSandbox removes sb even when ctx was cancelled (Ctrl-C): cleanup must
// survive the cancellation that triggered it.
func removeSandbox(ctx context.Context, sb sandbox.Sandbox) error {
	if sb == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := sb.Remove(cctx); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
		return fmt.Errorf("remove sandbox %s: %w", sb.ID(), err)
	}
	return nil
}
