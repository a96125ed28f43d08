// Package k8stest gives integration tests the kubernetes runtime on the
// cluster RBX_KUBECONFIG points at (scripts/k8s-cluster.sh up starts one on
// this machine), or skips them with a clear message. RBX_REQUIRE_KUBERNETES=1
// (make test sets it once the cluster is up) turns every such skip into a
// failure; RBX_REQUIRE_DOCKER=1 (CI) does so too once RBX_KUBECONFIG is set,
// so a configured cluster that does not answer fails CI.
package k8stest

import (
	"context"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
)

// Env vars the tests read.
const (
	KubeconfigEnv = "RBX_KUBECONFIG"
	NamespaceEnv  = "RBX_K8S_NAMESPACE"
	RequireEnv    = "RBX_REQUIRE_KUBERNETES"
)

// Required reports whether a missing cluster fails tests instead of
// skipping them.
func Required() bool {
	return os.Getenv(RequireEnv) == "1" || os.Getenv(KubeconfigEnv) != "" && os.Getenv("RBX_REQUIRE_DOCKER") == "1"
}

// Kubeconfig returns RBX_KUBECONFIG once its cluster answers; it skips tb
// under -short and when there is none (failing it instead when Required).
func Kubeconfig(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: skipping a test that needs a Kubernetes cluster")
	}
	kc := os.Getenv(KubeconfigEnv)
	if kc == "" {
		if Required() {
			tb.Fatalf("%s=1 but %s is not set (scripts/k8s-cluster.sh up prints it)", RequireEnv, KubeconfigEnv)
		}
		tb.Skipf("no Kubernetes cluster: set %s (scripts/k8s-cluster.sh up starts one)", KubeconfigEnv)
	}
	if err := kubernetes.Available(context.Background(), kc); err != nil {
		if Required() {
			tb.Fatalf("the cluster of %s=%s does not answer and %s/RBX_REQUIRE_DOCKER is set: %v", KubeconfigEnv, kc, RequireEnv, err)
		}
		tb.Skipf("the cluster of %s does not answer: %v", KubeconfigEnv, err)
	}
	return kc
}

// Namespace is the namespace tests use: RBX_K8S_NAMESPACE, else
// kubernetes.DefaultNamespace.
func Namespace() string {
	if ns := os.Getenv(NamespaceEnv); ns != "" {
		return ns
	}
	return kubernetes.DefaultNamespace
}

// Runtime returns a runtime on the test cluster, closed at test end; at
// test end no pod of this process (its rbx.owner) may remain.
func Runtime(tb testing.TB, opts ...kubernetes.Option) *kubernetes.Runtime {
	tb.Helper()
	kc := Kubeconfig(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := kubernetes.New(ctx, append([]kubernetes.Option{kubernetes.WithKubeconfig(kc), kubernetes.WithNamespace(Namespace())}, opts...)...)
	if err != nil {
		tb.Fatalf("kubernetes runtime: %v", err)
	}
	tb.Cleanup(func() { _ = rt.Close() })
	return rt
}

// NoneLeft fails tb when a pod owned by this process is still listed.
func NoneLeft(tb testing.TB, rt sandbox.Runtime) {
	tb.Helper()
	left, err := rt.List(context.Background(), map[string]string{sandbox.LabelOwner: sandbox.Owner})
	if err != nil {
		tb.Errorf("list pods left: %v", err)
		return
	}
	for _, in := range left {
		tb.Errorf("pod %s (%s) left behind", in.ID, in.State)
	}
}

// Runsc is the RuntimeClass scripts/k8s-cluster.sh creates for gVisor.
const Runsc = "runsc"

// RunscRuntime is Runtime with the pods on RuntimeClass Runsc; it skips
// tb, with a message, when the cluster has no such class (failing it
// instead when Required).
func RunscRuntime(tb testing.TB, opts ...kubernetes.Option) *kubernetes.Runtime {
	tb.Helper()
	rt := Runtime(tb, append([]kubernetes.Option{kubernetes.WithRuntimeClass(Runsc)}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := rt.Clientset().NodeV1().RuntimeClasses().Get(ctx, Runsc, metav1.GetOptions{}); err != nil {
		if Required() {
			tb.Fatalf("RuntimeClass %s: %v (scripts/k8s-cluster.sh up creates it once scripts/host-setup.sh runsc installed the wrapper)", Runsc, err)
		}
		tb.Skipf("RuntimeClass %s: %v (scripts/k8s-cluster.sh up creates it once scripts/host-setup.sh runsc installed the wrapper)", Runsc, err)
	}
	return rt
}
