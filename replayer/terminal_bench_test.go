package replayer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// BenchmarkIntegrationTerminal50 replays a 50-step keystroke trajectory
// (commands that print and return, each recorded as Terminus records it:
// the terminal after it and how long the agent waited, 1 to 3 s) on Docker
// and prints its wall time next to the sum of the recorded waits, the
// clock replay no longer sleeps on, in one run. The sandbox is created
// before timing; the terminal's start is timed (it is part of a replay).
func BenchmarkIntegrationTerminal50(b *testing.B) {
	const image = "rbx/debian:bookworm"
	rt := dockerRuntime(b, image)
	steps := make([]trajectory.Step, 50)
	var recorded time.Duration
	for i := range steps {
		wait := time.Duration(1+i%3) * time.Second
		recorded += wait
		steps[i] = keys(fmt.Sprintf("echo step-$((%d * 2))\n", i), wait,
			fmt.Sprintf("root@0c1d2e3f4a5b:/workspace# echo step-$((%d * 2))\nstep-%d\nroot@0c1d2e3f4a5b:/workspace#", i, 2*i))
	}
	traj := &trajectory.Trajectory{ID: "term50", Task: "t", Steps: steps}
	rp, err := replayer.New()
	require.NoError(b, err)
	for i := 0; i < b.N; i++ {
		sb := create(b, rt, sandbox.Spec{Image: image, Mode: sandbox.ModeSession})
		start := time.Now()
		_, err := rp.Replay(context.Background(), sb, &task.Task{ID: "t"}, traj, traj.Len())
		require.NoError(b, err)
		wall := time.Since(start)
		fmt.Printf("\n50-step terminal trajectory on Docker: replay %.2fs wall; recorded waits %.0fs (%.1fx faster)\n",
			wall.Seconds(), recorded.Seconds(), recorded.Seconds()/wall.Seconds())
	}
}
