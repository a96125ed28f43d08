package reset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// BenchmarkIntegrationResetRunsc prints, in one run, what gVisor costs:
// warm pool reset and cold reset (create + start + replay) for k ∈ {0, 10},
// and one trivial session step on a started sandbox, on the engine's runc
// and on runsc, the same work on both sides (docs/isolation.md). Run with
// -benchtime 1x.
func BenchmarkIntegrationResetRunsc(b *testing.B) {
	runtimes := []struct {
		name string
		rt   sandbox.Runtime
	}{{"runc", dockertest.Runtime(b, busybox)}, {"runsc", dockertest.RunscRuntime(b, busybox)}}
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nrunc vs runsc (gVisor), rbx/busybox, trivial shell steps (ms)\n%-30s %4s %9s %9s %9s %9s %12s\n",
			"what", "k", "runc p50", "runc p99", "runsc p50", "runsc p99", "runsc/runc")
		row := func(what string, k string, d [2]dist) {
			fmt.Printf("%-30s %4s %9.2f %9.2f %9.2f %9.2f %11.1fx\n", what, k,
				msf(d[0].q(.5)), msf(d[0].q(.99)), msf(d[1].q(.5)), msf(d[1].q(.99)), float64(d[1].q(.5))/float64(d[0].q(.5)))
		}
		for _, k := range []int{0, 10} {
			var warm, cold [2]dist
			for j, r := range runtimes {
				warm[j] = warmResets(b, r.rt, k, 30)
				cold[j] = coldResets(b, r.rt, k, 10)
			}
			row("warm pool reset", fmt.Sprint(k), warm)
			row("cold reset", fmt.Sprint(k), cold)
		}
		var step [2]dist
		for j, r := range runtimes {
			step[j] = sessionSteps(b, r.rt, 200)
		}
		row("one session step", "-", step)
		b.ReportMetric(msf(step[1].q(.5)), "runsc-step-p50-ms")
	}
}

// sessionSteps times n trivial steps in one started session sandbox (the
// first step, which starts the shell, not counted).
func sessionSteps(b *testing.B, rt sandbox.Runtime, n int) dist {
	ctx := context.Background()
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busybox, Mode: sandbox.ModeSession, Labels: map[string]string{"rbx.test": sandbox.LabelValue(b.Name())}})
	b.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(b, err)
	req := sandbox.ExecRequest{Command: "true"}
	_, err = sb.Exec(ctx, req)
	require.NoError(b, err)
	d := make(dist, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		res, err := sb.Exec(ctx, req)
		require.NoError(b, err)
		require.Equal(b, 0, res.ExitCode)
		d = append(d, time.Since(start))
	}
	return d
}
