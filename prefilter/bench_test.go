package prefilter_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
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
		for _, c := range []int{1, 2, 4} {
			start := time.Now()
			rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(benchRepeats), prefilter.WithConcurrency(c))
			require.NoError(b, err)
			times[c] = time.Since(start)
			require.Equal(b, 3, rep.Summary.Kept, "every example is kept at concurrency %d", c)
		}
		perMin := func(d time.Duration) float64 { return float64(len(items)) / d.Minutes() }
		fmt.Printf("\nprefilter: %d examples × %d repeats\n%-40s %9s %12s %9s\n", len(items), benchRepeats, "method", "time", "traj/min", "vs c=1")
		fmt.Printf("%-40s %8.2fs %12.1f %8.2fx\n", "sequential replays (no pool), sum", seq.Seconds(), perMin(seq), float64(times[1])/float64(seq))
		for _, c := range []int{1, 2, 4} {
			fmt.Printf("%-40s %8.2fs %12.1f %8.2fx\n", fmt.Sprintf("rbx prefilter --concurrency %d", c), times[c].Seconds(), perMin(times[c]), float64(times[1])/float64(times[c]))
		}
		fmt.Printf("speed-up at concurrency 4 over 1: %.2fx (target >= 1.7x)\n", float64(times[1])/float64(times[4]))
		b.ReportMetric(perMin(times[1]), "traj/min-c1")
		b.ReportMetric(perMin(times[4]), "traj/min-c4")
		b.ReportMetric(float64(times[1])/float64(times[4]), "speedup-c4")
	}
}

// sequential replays every item benchRepeats times, one at a time, without
// a pool, and returns the total time.
func sequential(b *testing.B, ctx context.Context, rt sandbox.Runtime, rp *replayer.Replayer, items []*prefilter.Item) time.Duration {
	b.Helper()
	start := time.Now()
	for _, it := range items {
		for range benchRepeats {
			sb, err := rt.Create(ctx, it.Task.SandboxSpec())
			require.NoError(b, err)
			require.NoError(b, replayer.Prepare(ctx, sb, it.Task))
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
