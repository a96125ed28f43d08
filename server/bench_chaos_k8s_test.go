package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	containerd "github.com/containerd/containerd/v2/client"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// BenchmarkIntegrationChaosKubernetes is BenchmarkIntegrationChaos with
// pods: rbx serve --runtime kubernetes on the test cluster, sandboxes
// killed by deleting their pods (no grace: a node lost, an eviction) and
// frozen by pausing their container in the node's containerd (a node
// that stops answering). Skipped without the test cluster (make bench
// K8S=1).
func BenchmarkIntegrationChaosKubernetes(b *testing.B) {
	rt := k8stest.Runtime(b)
	k8stest.ImportImages(b, imgDebian)
	b.Cleanup(func() { k8stest.NoneLeft(b, rt) })
	kc := k8stest.Kubeconfig(b)
	ctx := context.Background()
	sock := filepath.Join(filepath.Dir(kc), "containerd", "containerd.sock")
	cri, err := containerd.New(sock, containerd.WithDefaultNamespace("k8s.io"))
	require.NoError(b, err, "the test cluster's containerd at %s", sock)
	b.Cleanup(func() { _ = cri.Close() })
	bin, from := buildServeBinary(b)
	inj := &podInjector{cs: rt.Clientset(), ns: rt.Namespace(), cri: cri}
	var rep chaosReport
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep = runChaos(b, bin, inj, []string{"--runtime", "kubernetes", "--kubeconfig", kc, "--namespace", rt.Namespace()})
	}
	b.StopTimer()
	rep.From = from + ", kubernetes"
	rep.print(os.Stdout)
	rep.judge(b)
	_ = ctx
}

// podInjector breaks a server's pods.
type podInjector struct {
	cs  k8s.Interface
	ns  string
	cri *containerd.Client
}

// pick is one running sandbox pod of the server whose process is pid.
func (p *podInjector) pick(ctx context.Context, pid int, rng *rand.Rand) (string, error) {
	pods, err := p.cs.CoreV1().Pods(p.ns).List(ctx, metav1.ListOptions{LabelSelector: sandbox.LabelManaged + "=true", FieldSelector: "status.phase=Running"})
	if err != nil {
		return "", err
	}
	var mine []string
	for _, pod := range pods.Items {
		if ownerPid(pod.Labels[sandbox.LabelOwner]) == pid && pod.DeletionTimestamp == nil {
			mine = append(mine, pod.Name)
		}
	}
	if len(mine) == 0 {
		return "", nil
	}
	return mine[rng.IntN(len(mine))], nil
}

func (p *podInjector) kill(ctx context.Context, pid int, rng *rand.Rand) (string, error) {
	name, err := p.pick(ctx, pid, rng)
	if err != nil || name == "" {
		return "", err
	}
	zero := int64(0)
	return name, p.cs.CoreV1().Pods(p.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
}

// freeze pauses the pod's sandbox container in the node's containerd for
// d (every container of the pod but its pause container).
func (p *podInjector) freeze(ctx context.Context, pid int, rng *rand.Rand, d time.Duration) (string, error) {
	name, err := p.pick(ctx, pid, rng)
	if err != nil || name == "" {
		return "", err
	}
	cs, err := p.cri.Containers(ctx, fmt.Sprintf(`labels."io.kubernetes.pod.name"==%s,labels."io.kubernetes.container.name"==%s`, name, "sandbox"))
	if err != nil || len(cs) == 0 {
		return "", err
	}
	task, err := cs[0].Task(ctx, nil)
	if err != nil {
		return "", err
	}
	if err := task.Pause(ctx); err != nil {
		return "", err
	}
	time.AfterFunc(d, func() { _ = task.Resume(context.Background()) })
	return name, nil
}
