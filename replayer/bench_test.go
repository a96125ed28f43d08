package replayer_test

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// BenchmarkIntegrationReset20 resets a pre-started container to k = 20
// trivial shell steps in session mode and in exec mode, and runs the
// docker-CLI script a user would write by hand (docker run + 20 × docker
// exec), all in one run, and reports medians side by side. Run with
// -benchtime 1x: each mode loops on its own.
func BenchmarkIntegrationReset20(b *testing.B) {
	const k, image = 20, "rbx/busybox:latest"
	rt := dockerRuntime(b, image)
	steps := make([]trajectory.Step, k)
	for i := range steps {
		steps[i] = trajectory.Step{Action: trajectory.KindShell, Command: "true"}
	}
	traj := &trajectory.Trajectory{ID: "bench", Steps: steps}
	tk := &task.Task{ID: "bench", Image: image}
	rp, err := replayer.New()
	require.NoError(b, err)
	measure := func(mode sandbox.Mode, n int) time.Duration {
		sb := create(b, rt, sandbox.Spec{Image: image, Mode: mode})
		var ds []time.Duration
		for i := 0; i < n; i++ {
			start := time.Now()
			_, err := rp.Replay(context.Background(), sb, tk, traj, k)
			require.NoError(b, err)
			ds = append(ds, time.Since(start))
		}
		return quantile(ds, 0.5)
	}
	for i := 0; i < b.N; i++ {
		session := measure(sandbox.ModeSession, 50)
		execMode := measure(sandbox.ModeExec, 10)
		cli := cliBaseline(b, image, k, 5)
		b.ReportMetric(ms(session), "session-ms")
		b.ReportMetric(ms(execMode), "exec-ms")
		b.ReportMetric(ms(cli), "cli-ms")
		b.ReportMetric(float64(cli)/float64(session), "cli/session")
		b.ReportMetric(ms(session)/k, "session-ms/step")
		fmt.Printf("\nreset to k=%d trivial steps (median)\n%-34s %10s %10s\n", k, "method", "median", "vs session")
		fmt.Printf("%-34s %8.2fms %9.1fx\n", "rbx session mode (pre-started)", ms(session), 1.0)
		fmt.Printf("%-34s %8.2fms %9.1fx\n", "rbx exec mode (pre-started)", ms(execMode), float64(execMode)/float64(session))
		fmt.Printf("%-34s %8.2fms %9.1fx\n", "docker CLI: run + 20 x exec", ms(cli), float64(cli)/float64(session))
		fmt.Printf("per-step overhead, session mode: %.3f ms (target < 2 ms); CLI/session = %.0fx (target >= 20x)\n",
			ms(session)/k, float64(cli)/float64(session))
	}
}

// cliBaseline runs scripts/bench-cli.sh n times and returns the median of
// the milliseconds it reports for docker run + k docker exec.
func cliBaseline(b *testing.B, image string, k, n int) time.Duration {
	b.Helper()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		out, err := exec.Command("../scripts/bench-cli.sh", image, strconv.Itoa(k)).Output()
		require.NoError(b, err)
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		require.NoError(b, err, "bench-cli.sh printed %q", out)
		ds = append(ds, time.Duration(v*float64(time.Millisecond)))
	}
	return quantile(ds, 0.5)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
