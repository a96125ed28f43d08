package reset_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// dist is a latency sample.
type dist []time.Duration

func (d dist) q(p float64) time.Duration {
	s := append(dist(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1)+0.5)]
}

func msf(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkIntegrationReset prints, in one run, for k ∈ {0, 10, 50}: warm
// pool reset, cold reset (create + start + replay), the raw Engine API floor
// (create + start; one exec round trip) and the docker-CLI script (docker
// run + k × docker exec; in both cold rows the removal is outside the
// timing); then orchestrator memory per pooled sandbox. Run with
// -benchtime 1x.
func BenchmarkIntegrationReset(b *testing.B) {
	rt := dockerRuntimeB(b)
	ctrd := containerdRuntimeB(b)
	kube := kubernetesRuntimeB(b)
	cli := cliAvailable()
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nreset latency, rbx/busybox, trivial shell steps (ms)\n%-40s %4s %9s %9s %9s\n", "method", "k", "p50", "p99", "p50/warm")
		var warm10 time.Duration
		for _, k := range []int{0, 10, 50} {
			warm := warmResets(b, rt, k, 40)
			cold := coldResets(b, rt, k, 12)
			rowOf := func(name string, d, base dist) {
				fmt.Printf("%-40s %4d %9.2f %9.2f %8.1fx\n", name, k, msf(d.q(.5)), msf(d.q(.99)), float64(d.q(.5))/float64(base.q(.5)))
			}
			row := func(name string, d dist) { rowOf(name, d, warm) }
			row("rbx warm pool reset", warm)
			row("rbx cold reset (create+start+replay)", cold)
			if cli == nil {
				row("docker CLI: run + k x exec", cliRuns(b, k, 4))
			}
			if ctrd != nil { // p50/warm against containerd's own warm reset
				cwarm := warmResets(b, ctrd, k, 40)
				rowOf("containerd: rbx warm pool reset", cwarm, cwarm)
				rowOf("containerd: rbx cold reset", coldResets(b, ctrd, k, 12), cwarm)
			}
			if kube != nil { // fewer samples: a pod start is ~10x a container's
				kwarm := warmResets(b, kube, k, 20)
				rowOf("kubernetes: rbx warm pool reset", kwarm, kwarm)
				rowOf("kubernetes: rbx cold reset", coldResets(b, kube, k, 6), kwarm)
			}
			if k == 10 {
				warm10 = warm.q(.5)
			}
		}
		if cli != nil {
			fmt.Printf("docker CLI rows skipped: %v\n", cli)
		}
		create, execRT := engineFloor(b, rt, 12)
		fmt.Printf("%-40s %4s %9.2f %9.2f\n", "engine floor: create + start", "-", msf(create.q(.5)), msf(create.q(.99)))
		fmt.Printf("%-40s %4s %9.2f %9.2f\n", "engine floor: one exec round trip", "-", msf(execRT.q(.5)), msf(execRT.q(.99)))
		perSandbox := memoryPerPooled(b, rt, 24)
		fmt.Printf("\nwarm reset to k=10: p50 %.2f ms (target <= 25 ms)\n", msf(warm10))
		fmt.Printf("orchestrator memory per pooled sandbox: %.0f KiB (target <= 2048 KiB)\n", perSandbox/1024)
		b.ReportMetric(msf(warm10), "warm10-p50-ms")
		b.ReportMetric(perSandbox/1024, "KiB/pooled")
	}
}

// BenchmarkIntegrationResetThroughput: sustained resets to k = 10 at
// concurrency 8, a fresh container per reset, against the engine's own
// create + start + remove rate on the same number of containers. Both
// windows open on an empty start and close after the last removal; the two
// alternate for a few rounds so that load from elsewhere on the machine
// falls on both. The pool sets out to create its size in spares beyond
// the n containers used (8 of 56 at n = 48), cancelled or removed unused at
// Close: a cost of the warm pool that a longer window (RBX_BENCH_RESETS)
// amortises. Run with -benchtime 1x.
func BenchmarkIntegrationResetThroughput(b *testing.B) {
	const k, c, rounds = 10, 8, 3
	n := 48 // RBX_BENCH_RESETS: a longer window amortises the pool's spares
	if v := os.Getenv("RBX_BENCH_RESETS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err, "RBX_BENCH_RESETS")
	}
	rt := dockerRuntimeB(b)
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nthroughput, k=%d, concurrency %d, pool %d, %d resets vs %d engine containers per window, empty start to last removal\n%-6s %14s %14s %7s %20s\n",
			k, c, c, n, n, "round", "engine /s", "rbx resets/s", "ratio", "rbx made (attempted)")
		var sumEngine, sumRBX float64
		for r := 1; r <= rounds; r++ {
			engine := engineRate(b, rt, c, n)
			rbx, created, attempted := throughput(b, rt, k, c, n)
			sumEngine, sumRBX = sumEngine+engine, sumRBX+rbx
			fmt.Printf("%-6d %14.2f %14.2f %7.2f %15d (%d)\n", r, engine, rbx, rbx/engine, created, attempted)
		}
		ratio := sumRBX / sumEngine
		fmt.Printf("%-6s %14.2f %14.2f %7.2f (target >= 0.9)\n", "mean", sumEngine/rounds, sumRBX/rounds, ratio)
		b.ReportMetric(ratio, "throughput-ratio")
	}
}

func dockerRuntimeB(b *testing.B) *docker.Runtime { return dockerRuntime(b) }

// containerdRuntimeB returns the containerd runtime whose rows are printed
// next to Docker's, or nil (with a note) when no containerd answers.
func containerdRuntimeB(b *testing.B) sandbox.Runtime {
	if err := containerd.Available(context.Background(), ""); err != nil {
		fmt.Printf("containerd rows left out: %v\n", err)
		return nil
	}
	return containerdtest.Runtime(b, busybox)
}

// kubernetesRuntimeB returns the kubernetes runtime whose rows are printed
// next to Docker's, or nil (with a note) when RBX_KUBECONFIG names no
// cluster that answers (make bench starts one).
func kubernetesRuntimeB(b *testing.B) sandbox.Runtime {
	kc := os.Getenv(k8stest.KubeconfigEnv)
	if kc == "" {
		fmt.Printf("kubernetes rows left out: %s not set (scripts/k8s-cluster.sh up)\n", k8stest.KubeconfigEnv)
		return nil
	}
	if err := kubernetes.Available(context.Background(), kc); err != nil {
		fmt.Printf("kubernetes rows left out: %v\n", err)
		return nil
	}
	return k8stest.Runtime(b)
}

// warmResets measures Reset with a warm sandbox ready each time (the
// refill wait is not counted: that is the pool's job between resets).
func warmResets(b *testing.B, rt sandbox.Runtime, k, n int) dist {
	rp, err := replayer.New()
	require.NoError(b, err)
	r, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(b, err)
	defer r.Close(context.Background())
	tk, traj := trivial(fmt.Sprintf("bench-warm-%d", k), k)
	require.NoError(b, r.Warm(tk))
	var d dist
	for i := 0; i < n; i++ {
		waitIdle(b, r, 1)
		start := time.Now()
		ep, err := r.Reset(context.Background(), tk, traj, k)
		sb := ep.Sandbox
		require.NoError(b, err)
		d = append(d, time.Since(start))
		r.Release(sb)
	}
	return d
}

func waitIdle(b *testing.B, r *reset.Resetter, n int) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range r.Stats() {
			if s.Idle >= n {
				return
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("pool did not refill: %+v", r.Stats())
}

// coldResets: a fresh sandbox created, started and replayed, no pool.
func coldResets(b *testing.B, rt sandbox.Runtime, k, n int) dist {
	rp, err := replayer.New()
	require.NoError(b, err)
	tk, traj := trivial(fmt.Sprintf("bench-cold-%d", k), k)
	var d dist
	for i := 0; i < n; i++ {
		start := time.Now()
		sb, err := rt.Create(context.Background(), provision.Spec(tk))
		require.NoError(b, err)
		_, err = rp.Replay(context.Background(), sb, tk, traj, k)
		require.NoError(b, err)
		d = append(d, time.Since(start))
		require.NoError(b, sb.Remove(context.Background()))
	}
	return d
}

// cliAvailable is nil when the docker CLI, measured as a baseline only,
// is on PATH.
func cliAvailable() error {
	if _, err := exec.LookPath("docker"); err != nil {
		return fmt.Errorf("no docker CLI on PATH (%w)", err)
	}
	return nil
}

// cliRuns: scripts/bench-cli.sh run mode (docker run + k × docker exec,
// the removal untimed, as in coldResets).
func cliRuns(b *testing.B, k, n int) dist {
	var d dist
	for i := 0; i < n; i++ {
		out, err := exec.Command("../scripts/bench-cli.sh", busybox, strconv.Itoa(k), "run").Output()
		require.NoError(b, err)
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		require.NoError(b, err)
		d = append(d, time.Duration(v*1e6))
	}
	return d
}

// engineFloor measures the raw Engine API: create + start of a bare
// container (with rbx's logging setting, so the floor is a true floor), and
// one exec round trip (create, start attached, inspect).
func engineFloor(b *testing.B, rt *docker.Runtime, n int) (create, execRT dist) {
	cli, ctx := rt.Client(), context.Background()
	for i := 0; i < n; i++ {
		start := time.Now()
		id := rawCreateStart(b, rt)
		create = append(create, time.Since(start))
		start = time.Now()
		ex, err := cli.ContainerExecCreate(ctx, id, container.ExecOptions{Cmd: []string{"true"}, AttachStdout: true})
		require.NoError(b, err)
		hj, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
		require.NoError(b, err)
		_, _ = hj.Reader.WriteTo(discard{})
		hj.Close()
		_, err = cli.ContainerExecInspect(ctx, ex.ID)
		require.NoError(b, err)
		execRT = append(execRT, time.Since(start))
		require.NoError(b, cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true}))
	}
	return create, execRT
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// floorTask labels the raw Engine API containers.
const floorTask = "bench-floor"

func rawCreateStart(b *testing.B, rt *docker.Runtime) string {
	cli, ctx := rt.Client(), context.Background()
	c, err := cli.ContainerCreate(ctx, &container.Config{Image: busybox, Cmd: []string{"sleep", "3600"},
		Labels: sandbox.ManagedLabels(map[string]string{sandbox.LabelTask: floorTask})},
		&container.HostConfig{NetworkMode: "none", Init: ptr(true), LogConfig: container.LogConfig{Type: "none"}}, nil, nil, "")
	require.NoError(b, err)
	require.NoError(b, cli.ContainerStart(ctx, c.ID, container.StartOptions{}))
	return c.ID
}

func ptr[T any](v T) *T { return &v }

// throughput: n resets to k at concurrency c, each on a fresh container
// from the pool, released (removed) after use. The window opens on an
// empty start (no container exists: the pool fills inside it) and closes
// when Close has removed every container — the used ones and the pool's
// spares — so it holds all the work, as engineRate's does. It returns the
// resets per second and how many containers the pool created (and set out
// to create) for them.
func throughput(b *testing.B, rt *docker.Runtime, k, c, n int) (rate float64, created, attempted int64) {
	const task = "bench-throughput"
	requireNone(b, rt, task)
	rp, err := replayer.New()
	require.NoError(b, err)
	tk, traj := trivial(task, k)
	counted := &countingCreator{rt: rt}
	start := time.Now()
	r, err := reset.New(counted, rp, reset.WithPoolOptions(pool.WithSize(c), pool.WithConcurrency(c)))
	require.NoError(b, err)
	var g errgroup.Group
	g.SetLimit(c)
	for i := 0; i < n; i++ {
		g.Go(func() error {
			ep, err := r.Reset(context.Background(), tk, traj, k)
			if err != nil {
				return err
			}
			r.Release(ep.Sandbox)
			return nil
		})
	}
	err = g.Wait()
	require.NoError(b, errors.Join(err, r.Close(context.Background())))
	elapsed := time.Since(start)
	requireNone(b, rt, task)
	return float64(n) / elapsed.Seconds(), counted.created.Load(), counted.attempted.Load()
}

// countingCreator counts the containers the pool set out to create (the
// n used ones, the spares it kept warm and removed unused at Close, and the
// creations Close cancelled) and those it completed.
type countingCreator struct {
	rt                 pool.Creator
	attempted, created atomic.Int64
}

func (c *countingCreator) Create(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	c.attempted.Add(1)
	sb, err := c.rt.Create(ctx, spec)
	if err == nil {
		c.created.Add(1)
	}
	return sb, err
}

// engineRate: n × (create + start + remove) at concurrency c, raw API,
// from the same empty start to the last removal.
func engineRate(b *testing.B, rt *docker.Runtime, c, n int) float64 {
	requireNone(b, rt, floorTask)
	var g errgroup.Group
	g.SetLimit(c)
	start := time.Now()
	for i := 0; i < n; i++ {
		g.Go(func() error {
			id := rawCreateStart(b, rt)
			return rt.Client().ContainerRemove(context.Background(), id, container.RemoveOptions{Force: true})
		})
	}
	require.NoError(b, g.Wait())
	elapsed := time.Since(start)
	requireNone(b, rt, floorTask)
	return float64(n) / elapsed.Seconds()
}

// requireNone fails b unless no container of this process carries the
// task label: the throughput windows start empty and end empty.
func requireNone(b *testing.B, rt *docker.Runtime, task string) {
	b.Helper()
	list, err := rt.Client().ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelOwner+"="+sandbox.Owner), filters.Arg("label", sandbox.LabelTask+"="+task))})
	require.NoError(b, err)
	require.Empty(b, list, "containers of %s outside the window", task)
}

// memoryPerPooled fills a pool of n and returns the heap growth per sandbox.
func memoryPerPooled(b *testing.B, rt *docker.Runtime, n int) float64 {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	before := heap()
	p, err := pool.New(rt, pool.Template{Key: "bench-mem", Spec: sandbox.Spec{Image: busybox,
		Labels: map[string]string{sandbox.LabelTask: "bench-mem"}}}, pool.WithSize(n), pool.WithConcurrency(4))
	require.NoError(b, err)
	var once sync.Once
	defer once.Do(func() { _ = p.Close(context.Background()) })
	deadline := time.Now().Add(2 * time.Minute)
	for p.Stats().Idle < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(b, n, p.Stats().Idle)
	after := heap()
	return float64(after-before) / float64(n)
}
