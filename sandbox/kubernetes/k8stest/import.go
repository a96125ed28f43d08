package k8stest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// ImportImages copies images built in Docker into the test cluster's
// containerd, as scripts/k8s-cluster.sh imports rbx's base images: pods
// then run them with imagePullPolicy IfNotPresent or Never.
func ImportImages(tb testing.TB, refs ...string) {
	tb.Helper()
	withCRI(tb, func(ctx context.Context, cri *containerd.Runtime) {
		for _, ref := range refs {
			if _, err := cri.EnsureImage(ctx, ref); err != nil {
				tb.Fatalf("import %s into the test cluster: %v", ref, err)
			}
		}
	})
}

// BuildImage builds the Dockerfile in dir as tag in Docker, unless tag
// exists there (name it by its content), and imports it into the test
// cluster's containerd.
func BuildImage(tb testing.TB, dir, tag string) {
	tb.Helper()
	withCRI(tb, func(ctx context.Context, cri *containerd.Runtime) {
		if _, err := cri.BuildImage(ctx, dir, tag); err != nil {
			tb.Fatalf("build %s from %s for the test cluster: %v", tag, dir, err)
		}
	})
}

// withCRI calls f with the test cluster's containerd (its socket beside
// RBX_KUBECONFIG, where scripts/k8s-cluster.sh keeps it), Docker as its
// image source.
func withCRI(tb testing.TB, f func(context.Context, *containerd.Runtime)) {
	tb.Helper()
	kc := Kubeconfig(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src := dockertest.Runtime(tb)
	sock := filepath.Join(filepath.Dir(kc), "containerd", "containerd.sock")
	cri, err := containerd.New(ctx, containerd.WithAddress(sock), containerd.WithNamespace("k8s.io"), containerd.WithImageSource(builtSource{src}))
	if err != nil {
		tb.Fatalf("the test cluster's containerd at %s: %v", sock, err)
	}
	defer cri.Close()
	f(ctx, cri)
}
