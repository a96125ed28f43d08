package reset_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

const busybox = "rbx/busybox:latest"

func dockerRuntime(tb testing.TB) *docker.Runtime { return dockertest.Runtime(tb, busybox) }

// trivial is a task and a trajectory of k shell steps that count in a file,
// so the reached state can be checked.
func trivial(id string, k int) (*task.Task, *trajectory.Trajectory) {
	steps := make([]trajectory.Step, k)
	for i := range steps {
		steps[i] = trajectory.Step{Action: trajectory.KindShell, Command: "echo x >> count"}
	}
	return &task.Task{ID: id, Image: busybox, Verify: task.Verify{Command: "true"}},
		&trajectory.Trajectory{ID: id, Task: id, Steps: steps}
}

// containers lists this process's containers with the given labels.
func containers(t *testing.T, rt *docker.Runtime, labels ...string) []container.Summary {
	t.Helper()
	f := filters.NewArgs(filters.Arg("label", sandbox.LabelOwner+"="+sandbox.Owner))
	for _, l := range labels {
		f.Add("label", l)
	}
	list, err := rt.Client().ContainerList(context.Background(), container.ListOptions{All: true, Filters: f})
	require.NoError(t, err)
	return list
}

// TestIntegrationChaos: 200 resets at concurrency 8 while another goroutine
// kills random pool containers. Retries absorb the kills: a reset fails only
// when every one of its attempts had its sandbox killed, with a typed error
// whose cause is the dead sandbox — never a stalled pool (a deadline). At
// this kill rate that is rare (0–2 of 200 measured on a loaded machine) and
// at most 5 % is allowed: without retries 41 of 200 failed. The pool
// recovers to its size; nothing is left afterwards.
func TestIntegrationChaos(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	const size, k, resets, retries = 4, 10, 200, 3
	r, err := reset.New(rt, rp, reset.WithRetries(retries), reset.WithPoolOptions(pool.WithSize(size), pool.WithConcurrency(4)))
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = r.Close(context.Background())
		}
	})
	tk, traj := trivial("chaos", k)
	key := reset.ClassKey(tk)

	ctx, stopChaos := context.WithCancel(context.Background())
	var killed atomic.Int64
	chaosDone := make(chan struct{})
	go func() { // the chaos monkey
		defer close(chaosDone)
		for ctx.Err() == nil {
			time.Sleep(time.Duration(20+rand.IntN(60)) * time.Millisecond)
			list := containers(t, rt, pool.LabelPool+"="+key)
			if len(list) == 0 {
				continue
			}
			c := list[rand.IntN(len(list))]
			if rt.Client().ContainerKill(context.Background(), c.ID, "KILL") == nil {
				killed.Add(1)
			}
		}
	}()

	var ok, failed atomic.Int64
	var mu sync.Mutex
	var failures []error
	var g errgroup.Group
	g.SetLimit(8)
	for i := 0; i < resets; i++ {
		g.Go(func() error {
			rctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ep, err := r.Reset(rctx, tk, traj, k)
			sb, rep := ep.Sandbox, ep.Report
			if err != nil {
				failed.Add(1)
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
				return nil
			}
			defer r.Release(sb)
			if assert.Equal(t, k, rep.Reached()) {
				ok.Add(1)
			}
			return nil
		})
	}
	require.NoError(t, g.Wait())
	stopChaos()
	<-chaosDone
	t.Logf("resets: %d ok, %d failed %v; containers killed: %d", ok.Load(), failed.Load(), failures, killed.Load())
	assert.EqualValues(t, resets, ok.Load()+failed.Load())
	assert.Positive(t, killed.Load(), "the chaos monkey killed containers")
	assert.LessOrEqual(t, failed.Load(), int64(resets/20), "retries absorb the kills: %v", failures)
	for _, err := range failures {
		var rerr *reset.Error
		if assert.ErrorAs(t, err, &rerr, "typed reset error") {
			assert.Equal(t, "chaos", rerr.Task)
			assert.Equal(t, retries+1, rerr.Attempts, "gave up before its retries: %v", err)
			assert.True(t, errors.Is(err, sandbox.ErrSandboxGone) || errors.Is(err, sandbox.ErrNotFound),
				"the cause is the killed sandbox: %v", err)
			assert.NotErrorIs(t, err, context.DeadlineExceeded, "the pool stalled")
		}
	}
	// The pool recovers to its target size.
	require.Eventually(t, func() bool {
		for _, s := range r.Stats() {
			if s.Key == key {
				return s.Idle == size
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "pool back to %d idle: %+v", size, r.Stats())
	require.NoError(t, r.Close(context.Background()))
	closed = true
	assert.Empty(t, containers(t, rt), "no rbx container of this process left")
}

// TestIntegrationResetState: the sandbox is at k, a divergence is not
// retried, Release removes the sandbox.
func TestIntegrationResetState(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(1)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	tk, traj := trivial("state", 5)
	ctx := context.Background()
	for _, k := range []int{0, 3, 5} {
		ep, err := r.Reset(ctx, tk, traj, k)
		sb, rep := ep.Sandbox, ep.Report
		require.NoError(t, err)
		assert.Equal(t, k, rep.Reached())
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "cat count 2>/dev/null | wc -l"})
		require.NoError(t, err)
		assert.Equal(t, k, atoi(t, string(res.Output)))
		r.Release(sb)
	}
	// A divergence is the trajectory's fault: one attempt, a StepError.
	bad := *traj
	bad.Steps = append([]trajectory.Step(nil), traj.Steps...)
	code := 0
	bad.Steps[1] = trajectory.Step{Action: trajectory.KindShell, Command: "false", Observation: &trajectory.Observation{ExitCode: &code}}
	_, err = r.Reset(ctx, tk, &bad, 3)
	var rerr *reset.Error
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, 1, rerr.Attempts)
	var se *replayer.StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Index)
	require.NoError(t, r.Close(ctx))
	assert.Empty(t, containers(t, rt, reset.LabelClass+"="+reset.ClassKey(tk)), "the failed reset left no sandbox of its class")
}

func atoi(t *testing.T, s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}
