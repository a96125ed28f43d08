package replayer_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

type example struct {
	name string
	task *task.Task
	traj *trajectory.Trajectory
}

func loadExamples(t *testing.T) []example {
	t.Helper()
	paths, err := filepath.Glob("../examples/*/trajectory.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 3, "bundled examples")
	var out []example
	for _, p := range paths {
		trajs, err := trajectory.Load(p)
		require.NoError(t, err)
		require.Len(t, trajs, 1)
		tp, err := trajs[0].ResolveTaskPath()
		require.NoError(t, err)
		tk, err := task.Load(tp)
		require.NoError(t, err)
		out = append(out, example{name: filepath.Base(filepath.Dir(p)), task: tk, traj: trajs[0]})
	}
	return out
}

// startOTP serves the OTP service on loopback with the task's secret and
// period (optionally overridden) and returns its URL.
func startOTP(t *testing.T, tk *task.Task, period time.Duration) string {
	t.Helper()
	if period == 0 {
		secs, err := strconv.Atoi(tk.Env["OTP_PERIOD"])
		require.NoError(t, err)
		period = time.Duration(secs) * time.Second
	}
	srv, err := otp.NewServer(tk.Env["OTP_SECRET"], period)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

// resetPlayVerify resets a fresh sandbox to k, checks the verifier rejects
// the state when k = 0, plays the reference suffix [k, T) and verifies.
func resetPlayVerify(ctx context.Context, t *testing.T, rt sandbox.Runtime, rp *replayer.Replayer, ex example, k int) {
	sb, err := rt.Create(ctx, provision.Spec(ex.task))
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	require.NoError(t, provision.Prepare(ctx, sb, ex.task))
	run := rp.Start(sb, ex.task, ex.traj)
	_, err = run.To(ctx, k)
	require.NoError(t, err, "%s: reset to k=%d", ex.name, k)
	if k == 0 {
		v, err := verifier.Run(ctx, sb, ex.task)
		require.NoError(t, err)
		assert.False(t, v.Passed, "%s: the verifier must reject the initial state", ex.name)
	}
	_, err = run.To(ctx, ex.traj.Len())
	require.NoError(t, err, "%s: suffix from k=%d", ex.name, k)
	v, err := verifier.Run(ctx, sb, ex.task)
	require.NoError(t, err)
	assert.True(t, v.Passed, "%s: verifier after reset to k=%d and the reference suffix: exit %d\n%s", ex.name, k, v.ExitCode, v.Output)
}

// TestIntegrationExamplesEveryCheckpoint: for every example and every valid
// checkpoint k, reset to k, play the reference suffix by hand, and the
// verifier passes.
func TestIntegrationExamplesEveryCheckpoint(t *testing.T) {
	exs := loadExamples(t)
	imgs := map[string]bool{}
	for _, ex := range exs {
		imgs[ex.task.Image] = true
	}
	var names []string
	for n := range imgs {
		names = append(names, n)
	}
	rt := dockerRuntime(t, names...)
	runAllCheckpoints(t, rt, exs)
}

// TestExamplesEveryCheckpointLocal runs the same on the local backend, the
// fallback when no engine answers.
func TestExamplesEveryCheckpointLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	rt, err := local.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	runAllCheckpoints(t, rt, loadExamples(t))
}

func runAllCheckpoints(t *testing.T, rt sandbox.Runtime, exs []example) {
	for _, ex := range exs {
		t.Run(ex.name, func(t *testing.T) {
			opts := []replayer.Option{}
			if _, ok := ex.task.Services["otp"]; ok {
				opts = append(opts, replayer.WithServices(map[string]string{"otp": startOTP(t, ex.task, 0)}))
			}
			rp, err := replayer.New(opts...)
			require.NoError(t, err)
			ctx := context.Background()
			var g errgroup.Group
			g.SetLimit(4)
			checked := 0
			for k := 0; k <= ex.traj.Len(); k++ {
				if !ex.traj.ValidCheckpoint(k) {
					continue
				}
				checked++
				g.Go(func() error {
					t.Run("k="+strconv.Itoa(k), func(t *testing.T) { resetPlayVerify(ctx, t, rt, rp, ex, k) })
					return nil
				})
			}
			require.NoError(t, g.Wait())
			assert.Greater(t, checked, 1)
		})
	}
}
