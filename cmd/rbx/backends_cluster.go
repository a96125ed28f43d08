//go:build !rbx_slim

package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
)

// containerdAddressUsage is the help of --containerd-address.
const containerdAddressUsage = "containerd socket for --runtime containerd (default: $CONTAINERD_ADDRESS, else " +
	containerd.StandardAddress + ", then Docker Engine's " + containerd.DockerAddress + ")"

// containerdSnapshotterUsage is the help of --containerd-snapshotter.
const containerdSnapshotterUsage = "snapshotter of --runtime containerd's sandboxes (default " + containerd.DefaultSnapshotter +
	"; native works on any filesystem but copies the image for every sandbox)"

// Environment variables that name the pod rbx runs in, which its
// Deployment sets from the downward API (metadata.name, metadata.uid). With both, --runtime kubernetes passes
// kubernetes.WithOwnerPod, so that the sandboxes of a pod deleted without
// draining go with it, and the next rbx takes its lease for dead at once.
const (
	podNameEnv = "RBX_POD_NAME"
	podUIDEnv  = "RBX_POD_UID"
)

// clusterBackends are the containerd and kubernetes backends, in a build
// without the rbx_slim tag (see backends_slim.go).
func clusterBackends(log *slog.Logger, progress io.Writer, o backendOptions) []sandbox.Backend {
	return []sandbox.Backend{
		{
			Name:      "containerd",
			Available: func(ctx context.Context) error { return containerd.Available(ctx, o.containerdAddress) },
			New: func() (sandbox.Runtime, error) {
				// Images are built by the Docker Engine and imported from it;
				// without it only images already in the namespace can be used.
				// The image source never pulls: containerd pulls for itself.
				src, err := docker.New(docker.WithLogger(log), docker.WithProgress(progress))
				if err != nil {
					return nil, err
				}
				opts := []containerd.Option{containerd.WithAddress(o.containerdAddress),
					containerd.WithLogger(log), containerd.WithProgress(progress), containerd.WithImageSource(src), containerd.WithPullPolicy(o.pull)}
				if o.containerdSnapshotter != "" {
					opts = append(opts, containerd.WithSnapshotter(o.containerdSnapshotter))
				}
				if o.agent != "" {
					opts = append(opts, containerd.WithAgent(o.agent))
				}
				if o.ociRuntime != "" {
					opts = append(opts, containerd.WithOCIRuntime(o.ociRuntime))
				}
				return containerd.New(context.Background(), opts...)
			},
		},
		{
			Name:      "kubernetes",
			Available: func(ctx context.Context) error { return kubernetes.Available(ctx, o.kubeconfig) },
			New: func() (sandbox.Runtime, error) {
				opts := []kubernetes.Option{kubernetes.WithKubeconfig(o.kubeconfig), kubernetes.WithNamespace(o.namespace),
					kubernetes.WithLogger(log), kubernetes.WithProgress(progress), kubernetes.WithPullPolicy(o.pull)}
				if o.agent != "" && o.agentInPods {
					opts = append(opts, kubernetes.WithAgent(o.agent))
				}
				if o.ociRuntime != "" {
					// The pods' handler is the cluster's: the RuntimeClass
					// of that name (scripts/k8s-cluster.sh makes runsc).
					opts = append(opts, kubernetes.WithRuntimeClass(o.ociRuntime))
				}
				if name, uid := os.Getenv(podNameEnv), os.Getenv(podUIDEnv); name != "" && uid != "" {
					opts = append(opts, kubernetes.WithOwnerPod(name, uid))
				}
				return kubernetes.New(context.Background(), opts...)
			},
			Configured: func() bool { return o.kubeconfig != "" },
		},
	}
}
