package replayer_test

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// BenchmarkIntegrationReset20 replays k = 20 trivial shell steps in a
// container started before timing, and compares like with like, all in one
// run (medians): rbx's exec mode against the same 20 execs made directly
// through the Engine API (create, attach, inspect); rbx's session mode; and
// the docker CLI's 20 × `docker exec` alone, in a container also started
// before timing (skipped when no docker CLI is on PATH). Run with
// -benchtime 1x: each row loops on its own.
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
		raw := rawExecs(b, rt, image, k, 10)
		fmt.Printf("\nreplay of k=%d trivial steps in a container started before timing (median)\n%-50s %10s %12s\n",
			k, "method", "median", "vs session")
		row := func(name string, d time.Duration) {
			fmt.Printf("%-50s %8.2fms %11.1fx\n", name, ms(d), float64(d)/float64(session))
		}
		row("rbx session mode (one persistent shell)", session)
		row("rbx exec mode (one Engine API exec per step)", execMode)
		row("raw Engine API: 20 x exec (create+attach+inspect)", raw)
		fmt.Printf("exec through the Engine API: rbx exec mode / raw = %.2fx\n", float64(execMode)/float64(raw))
		b.ReportMetric(ms(session), "session-ms")
		b.ReportMetric(ms(execMode), "exec-ms")
		b.ReportMetric(ms(raw), "raw-exec-ms")
		b.ReportMetric(ms(session)/k, "session-ms/step")
		if err := cliOnPath(); err != nil {
			fmt.Printf("docker CLI row skipped: %v\n", err)
			continue
		}
		cli := cliBaseline(b, image, k, "exec", 5)
		row("docker CLI: 20 x docker exec", cli)
		fmt.Printf("CLI execs alone: %.0fx rbx session mode, %.2fx rbx exec mode\n",
			float64(cli)/float64(session), float64(cli)/float64(execMode))
		b.ReportMetric(ms(cli), "cli-exec-ms")
	}
}

// rawExecs returns the median of n runs of k execs of `sh -c true` made
// directly through the Engine API in one container started before timing:
// what rbx's exec mode does per step, without rbx.
func rawExecs(b *testing.B, rt *docker.Runtime, image string, k, n int) time.Duration {
	b.Helper()
	sb := create(b, rt, sandbox.Spec{Image: image, Mode: sandbox.ModeExec})
	cli, ctx := rt.Client(), context.Background()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		for j := 0; j < k; j++ {
			ex, err := cli.ContainerExecCreate(ctx, sb.ID(), container.ExecOptions{
				Cmd: []string{"sh", "-c", "true"}, AttachStdout: true, AttachStderr: true})
			require.NoError(b, err)
			hj, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
			require.NoError(b, err)
			_, err = stdcopy.StdCopy(discard{}, discard{}, hj.Reader)
			hj.Close()
			require.NoError(b, err)
			in, err := cli.ContainerExecInspect(ctx, ex.ID)
			require.NoError(b, err)
			require.Zero(b, in.ExitCode)
		}
		ds = append(ds, time.Since(start))
	}
	return quantile(ds, 0.5)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// cliOnPath is nil when the docker CLI, measured as a baseline only, is on
// PATH.
func cliOnPath() error {
	if _, err := exec.LookPath("docker"); err != nil {
		return fmt.Errorf("no docker CLI on PATH (%w)", err)
	}
	return nil
}

// cliBaseline runs scripts/bench-cli.sh in mode n times and returns the
// median of the milliseconds it reports.
func cliBaseline(b *testing.B, image string, k int, mode string, n int) time.Duration {
	b.Helper()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		out, err := exec.Command("../scripts/bench-cli.sh", image, strconv.Itoa(k), mode).Output()
		require.NoError(b, err)
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		require.NoError(b, err, "bench-cli.sh printed %q", out)
		ds = append(ds, time.Duration(v*float64(time.Millisecond)))
	}
	return quantile(ds, 0.5)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
