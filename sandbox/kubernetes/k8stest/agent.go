package k8stest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/recycle/agenttest"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
)

// RecyclingRuntime is Runtime with the rbx-agent built for the test
// binary (agenttest.Build): its agent image is built in Docker and
// imported into the test cluster's containerd (its socket beside
// RBX_KUBECONFIG, where scripts/k8s-cluster.sh keeps it), as the script
// imports rbx's other images, so that sandboxes created with Spec.Recycle
// can be recycled in place.
func RecyclingRuntime(tb testing.TB, opts ...kubernetes.Option) *kubernetes.Runtime {
	tb.Helper()
	kc := Kubeconfig(tb)
	bin := agenttest.Build(tb)
	data, err := os.ReadFile(bin)
	if err != nil {
		tb.Fatalf("agent: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src := dockertest.Runtime(tb)
	ref, err := images.BuildAgent(ctx, src.Client(), data)
	if err != nil {
		tb.Fatalf("agent image: %v", err)
	}
	sock := filepath.Join(filepath.Dir(kc), "containerd", "containerd.sock")
	cri, err := containerd.New(ctx, containerd.WithAddress(sock), containerd.WithNamespace("k8s.io"), containerd.WithImageSource(builtSource{src}))
	if err != nil {
		tb.Fatalf("the test cluster's containerd at %s: %v", sock, err)
	}
	defer cri.Close()
	if _, err := cri.EnsureImage(ctx, ref); err != nil {
		tb.Fatalf("import %s into the test cluster: %v", ref, err)
	}
	return Runtime(tb, append([]kubernetes.Option{kubernetes.WithAgent(bin)}, opts...)...)
}

// builtSource is Docker as the image source of an image built already
// (not a recipe): its EnsureImage has nothing to build. It hides Docker's
// Close from the containerd runtime's (dockertest closes it).
type builtSource struct{ containerd.ImageSource }

func (builtSource) EnsureImage(context.Context, string) (bool, error) { return false, nil }
