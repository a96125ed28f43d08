package probe_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// lines is a synthetic n-step busybox task: step i appends line-i to a
// file (step noop is a noop instead, and the verifier expects no line for
// it); the verifier checks every line, in order.
func lines(n, noop int) (*task.Task, *trajectory.Trajectory) {
	zero := 0
	steps := make([]trajectory.Step, n)
	var want []string
	for i := range steps {
		if i == noop {
			steps[i] = trajectory.Step{Action: trajectory.KindNoop, Note: "half way"}
			continue
		}
		steps[i] = trajectory.Step{Action: trajectory.KindShell, Command: fmt.Sprintf("echo line-%d >> lines.txt", i),
			Observation: &trajectory.Observation{ExitCode: &zero}}
		want = append(want, fmt.Sprintf("line-%d", i))
	}
	verify := fmt.Sprintf("printf '%%s\\n' %s | cmp -s - lines.txt", strings.Join(want, " "))
	id := fmt.Sprintf("lines-%d", n)
	return &task.Task{ID: id, Image: "rbx/busybox:latest", Verify: task.Verify{Command: verify}},
		&trajectory.Trajectory{ID: id + "-ref", Task: id, Steps: steps}
}

// TestSearchFewerRollouts: on a 40-step trajectory, search names the same
// bottleneck as sweep with clearly fewer rollouts; both counts are printed.
func TestSearchFewerRollouts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several hundred rollouts")
	}
	const n, noop, R = 40, 25, 8
	tk, tr := lines(n, noop)
	rt := localRuntime(t)
	run := func(t *testing.T, j int, mode string) *probe.Result {
		t.Helper()
		noisy := policy.Noisy{Noise: policy.Noise{Steps: map[int]float64{j: 0.9}}}
		p := newProber(t, rt, noisy, nil, probe.WithRollouts(R), probe.WithMode(mode))
		res, err := p.Run(context.Background(), tk, tr)
		require.NoError(t, err)
		require.NotNil(t, res.Bottleneck, "%s: no bottleneck", mode)
		var out bytes.Buffer
		require.NoError(t, probe.WriteTable(&out, res))
		t.Logf("%s, j=%d:\n%s", mode, j, out.String())
		return res
	}
	sweep := run(t, 20, probe.ModeSweep)
	assert.Equal(t, 20, sweep.Bottleneck.K)
	assert.Equal(t, n*R, sweep.TotalRollouts)
	for _, j := range []int{20, 3, noop, 38} {
		t.Run(fmt.Sprintf("j=%d", j), func(t *testing.T) {
			search := run(t, j, probe.ModeSearch)
			assert.Equal(t, j, search.Bottleneck.K, "search names j")
			assert.Equal(t, n*R, search.SweepRollouts)
			assert.Less(t, search.TotalRollouts, search.SweepRollouts/2, "search: %d rollouts, sweep: %d", search.TotalRollouts, search.SweepRollouts)
			t.Logf("j=%d: search %d rollouts in %d rounds, sweep %d", j, search.TotalRollouts, len(search.Rounds), search.SweepRollouts)
		})
	}
}

// TestExpertLocal: the expert scores 1.0 from every checkpoint of the
// busybox examples (quick; TestIntegrationExpertDocker covers all three
// examples on docker).
func TestExpertLocal(t *testing.T) {
	rt := localRuntime(t)
	services := map[string]string{"otp": otpService(t)}
	for _, name := range []string{"run-sh-path", "deploy-otp"} {
		t.Run(name, func(t *testing.T) {
			tk, tr := example(t, name)
			sel, err := probe.ParseCheckpoints(fmt.Sprintf("0-%d", tr.Len()))
			require.NoError(t, err)
			p := newProber(t, rt, policy.Expert{}, services, probe.WithRollouts(2), probe.WithCheckpoints(sel))
			res, err := p.Run(context.Background(), tk, tr)
			require.NoError(t, err)
			require.Len(t, res.Points, tr.Len()+1)
			for _, pt := range res.Points {
				assert.Equal(t, 1.0, pt.PHat, "k=%d: %s", pt.K, pt.LastError)
				assert.Equal(t, 2, pt.N)
			}
			assert.Nil(t, res.Bottleneck)
		})
	}
}
