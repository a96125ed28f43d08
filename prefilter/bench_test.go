package prefilter_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/verifier"
)

// benchRepeats is R in the throughput benchmark.
const benchRepeats = 3

// BenchmarkIntegrationPrefilter measures prefilter throughput on the bundled
// examples (R = 3) at concurrency 1, 2 and 4, next to the sum of the same
// replays done one after another the plain way (create a sandbox, copy the
// task's files, replay, verify, remove; no pool). Run with -benchtime 1x.
func BenchmarkIntegrationPrefilter(b *testing.B) {
	rt := dockerRuntime(b, "rbx/busybox:latest", "rbx/debian:bookworm")
	dir := b.TempDir()
	for _, ex := range []string{"deploy-otp", "run-sh-path", "fix-tests"} {
		copyDir(b, filepath.Join("..", "examples", ex), filepath.Join(dir, ex))
	}
	rp, err := replayer.New(replayer.WithServices(map[string]string{"otp": startOTP(b, filepath.Join(dir, "deploy-otp", "task.yaml"))}))
	require.NoError(b, err)
	items, err := prefilter.Discover(dir)
	require.NoError(b, err)
	require.Len(b, items, 3)
	ctx := context.Background()
	for range b.N {
		seq := sequential(b, ctx, rt, rp, items)
		times := map[int]time.Duration{}
		cores := map[int]float64{}
		for _, c := range []int{1, 2, 4} {
			start, busy := time.Now(), busyCPU()
			rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(benchRepeats), prefilter.WithConcurrency(c))
			require.NoError(b, err)
			times[c] = time.Since(start)
			cores[c] = (busyCPU() - busy).Seconds() / times[c].Seconds()
			require.Equal(b, 3, rep.Summary.Kept, "every example is kept at concurrency %d", c)
		}
		perMin := func(d time.Duration) float64 { return float64(len(items)) / d.Minutes() }
		fmt.Printf("\nprefilter: %d examples × %d repeats (%d cores)\n%-40s %9s %12s %9s %11s\n", len(items), benchRepeats, runtime.NumCPU(), "method", "time", "traj/min", "vs c=1", "cores busy")
		fmt.Printf("%-40s %8.2fs %12.1f %8.2fx\n", "sequential replays (no pool), sum", seq.Seconds(), perMin(seq), float64(times[1])/float64(seq))
		for _, c := range []int{1, 2, 4} {
			fmt.Printf("%-40s %8.2fs %12.1f %8.2fx %11.2f\n", fmt.Sprintf("rbx prefilter --concurrency %d", c), times[c].Seconds(), perMin(times[c]), float64(times[1])/float64(times[c]), cores[c])
		}
		fmt.Printf("speed-up at concurrency 4 over 1: %.2fx (target >= 1.7x); cores busy: %.2f at c=1, %.2f at c=4 of %d\n",
			float64(times[1])/float64(times[4]), cores[1], cores[4], runtime.NumCPU())
		b.ReportMetric(perMin(times[1]), "traj/min-c1")
		b.ReportMetric(perMin(times[4]), "traj/min-c4")
		b.ReportMetric(float64(times[1])/float64(times[4]), "speedup-c4")
	}
}

// busyCPU is the machine's busy CPU time so far (all cores, from /proc/stat):
// the benchmark reports how many cores each run kept busy, which bounds the
// speed-up concurrency can bring.
func busyCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	var total int64
	for i, f := range strings.Fields(line)[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		v, _ := strconv.ParseInt(f, 10, 64)
		total += v
	}
	return time.Duration(total) * 10 * time.Millisecond // USER_HZ = 100
}

// sequential replays every item benchRepeats times, one at a time, without
// a pool, and returns the total time.
func sequential(b *testing.B, ctx context.Context, rt sandbox.Runtime, rp *replayer.Replayer, items []*prefilter.Item) time.Duration {
	b.Helper()
	start := time.Now()
	for _, it := range items {
		for range benchRepeats {
			sb, err := rt.Create(ctx, provision.Spec(it.Task))
			require.NoError(b, err)
			require.NoError(b, provision.Prepare(ctx, sb, it.Task))
			_, err = rp.Replay(ctx, sb, it.Task, it.Traj, it.Traj.Len())
			require.NoError(b, err)
			v, err := verifier.Run(ctx, sb, it.Task)
			require.NoError(b, err)
			require.True(b, v.Passed, v.Output)
			require.NoError(b, sb.Remove(ctx))
		}
	}
	return time.Since(start)
}
