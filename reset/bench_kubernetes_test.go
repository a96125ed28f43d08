package reset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// BenchmarkIntegrationResetKubernetes prints, in one run, warm pool resets
// and cold resets (a new pod created, started, its session opened and
// replayed to k) on the Kubernetes backend for k ∈ {0, 10}, the same
// trivial steps on both sides: BenchmarkIntegrationReset's Kubernetes rows
// with more cold samples, cold resets both on a node done with the
// previous pod's teardown and back to back, and no Docker needed; then the
// same on the runsc RuntimeClass when the cluster has it
// (docs/benchmarks.md). Run with -benchtime 1x.
//
//	RBX_KUBECONFIG=$(scripts/k8s-cluster.sh kubeconfig) go test -run '^$' -bench IntegrationResetKubernetes -benchtime 1x ./reset/
func BenchmarkIntegrationResetKubernetes(b *testing.B) {
	runtimes := []namedRuntime{{"runc", k8stest.Runtime(b)}}
	if rt, err := runscRuntimeB(b); err != nil {
		fmt.Printf("kubernetes runsc rows left out: %v\n", err)
	} else {
		runtimes = append(runtimes, namedRuntime{"runsc", rt})
	}
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nkubernetes reset latency, rbx/busybox, trivial shell steps (ms)\n%-48s %4s %9s %9s %9s\n", "method", "k", "p50", "p99", "p50/warm")
		for _, r := range runtimes {
			for _, k := range []int{0, 10} {
				warm, cold := kubeRows(b, r.rt, k, r.name+": ", 20, 10)
				if r.name == "runc" && k == 10 {
					b.ReportMetric(msf(cold.q(.5)), "cold10-p50-ms")
					b.ReportMetric(msf(warm.q(.5)), "warm10-p50-ms")
				}
			}
		}
	}
}

// namedRuntime is a runtime and its name in the rows.
type namedRuntime struct {
	name string
	rt   sandbox.Runtime
}

// kubeRows measures and prints the warm and cold pod resets to k, the cold
// rows' p50 against the warm one's: cold resets each on a node done with
// the previous pod, and back to back.
func kubeRows(b *testing.B, rt sandbox.Runtime, k int, prefix string, nWarm, nCold int) (warm, cold dist) {
	warm = warmResets(b, rt, k, nWarm)
	time.Sleep(podSettle) // the pool's pods, removed at its Close
	cold = settledColdResets(b, rt, k, nCold)
	for _, row := range []struct {
		name string
		d    dist
	}{{"rbx warm pool reset", warm}, {"rbx cold reset", cold}, {"rbx cold reset, back to back", coldResets(b, rt, k, nCold)}} {
		fmt.Printf("%-48s %4d %9.2f %9.2f %8.1fx\n", "kubernetes "+prefix+row.name, k,
			msf(row.d.q(.5)), msf(row.d.q(.99)), float64(row.d.q(.5))/float64(warm.q(.5)))
	}
	return warm, cold
}

// podSettle is how long a removed pod's teardown is given before the next
// cold reset: Remove returns once the API deleted the pod, and the kubelet
// then stops its containers and its pod sandbox (a few hundred ms on the
// test cluster), which on a 2-core node would slow the next pod's start.
const podSettle = 2 * time.Second

// settledColdResets is coldResets with podSettle (untimed) after each
// removal, as Docker's Remove returns once the container is gone.
func settledColdResets(b *testing.B, rt sandbox.Runtime, k, n int) dist {
	var d dist
	for i := 0; i < n; i++ {
		d = append(d, coldResets(b, rt, k, 1)...)
		time.Sleep(podSettle)
	}
	return d
}

// runscRuntimeB is the test cluster's runtime on RuntimeClass runsc, or
// why not (no class: scripts/host-setup.sh runsc was not run).
func runscRuntimeB(b *testing.B) (*kubernetes.Runtime, error) {
	rt := k8stest.Runtime(b, kubernetes.WithRuntimeClass(k8stest.Runsc))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := rt.Clientset().NodeV1().RuntimeClasses().Get(ctx, k8stest.Runsc, metav1.GetOptions{}); err != nil {
		return nil, fmt.Errorf("RuntimeClass %s: %w", k8stest.Runsc, err)
	}
	return rt, nil
}
