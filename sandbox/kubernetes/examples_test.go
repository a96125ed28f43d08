package kubernetes_test

import (
	"context"
	"net/http/httptest"
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
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// TestIntegrationExamplesEveryCheckpoint is the replayer's test of the same
// name on pods: for every bundled example and every valid checkpoint k, a
// fresh pod is reset to k, the reference suffix is played, and the
// verifier passes (and rejects the initial state).
func TestIntegrationExamplesEveryCheckpoint(t *testing.T) {
	rt := k8stest.Runtime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	paths, err := filepath.Glob("../../examples/*/trajectory.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 3, "bundled examples")
	for _, p := range paths {
		trajs, err := trajectory.Load(p)
		require.NoError(t, err)
		tr := trajs[0]
		tp, err := tr.ResolveTaskPath()
		require.NoError(t, err)
		tk, err := task.Load(tp)
		require.NoError(t, err)
		t.Run(tk.ID, func(t *testing.T) {
			var opts []replayer.Option
			if _, ok := tk.Services["otp"]; ok {
				secs, err := strconv.Atoi(tk.Env["OTP_PERIOD"])
				require.NoError(t, err)
				h, err := otp.NewServer(tk.Env["OTP_SECRET"], time.Duration(secs)*time.Second)
				require.NoError(t, err)
				srv := httptest.NewServer(h)
				t.Cleanup(srv.Close)
				opts = append(opts, replayer.WithServices(map[string]string{"otp": srv.URL}))
			}
			rp, err := replayer.New(opts...)
			require.NoError(t, err)
			var g errgroup.Group
			g.SetLimit(3)
			checked := 0
			for k := 0; k <= tr.Len(); k++ {
				if !tr.ValidCheckpoint(k) {
					continue
				}
				checked++
				g.Go(func() error {
					t.Run("k="+strconv.Itoa(k), func(t *testing.T) { resetPlayVerify(t, rt, rp, tk, tr, k) })
					return nil
				})
			}
			require.NoError(t, g.Wait())
			assert.Greater(t, checked, 1)
		})
	}
}

func resetPlayVerify(t *testing.T, rt sandbox.Runtime, rp *replayer.Replayer, tk *task.Task, tr *trajectory.Trajectory, k int) {
	ctx := context.Background()
	sb, err := rt.Create(ctx, provision.Spec(tk))
	t.Cleanup(func() {
		if sb != nil {
			assert.NoError(t, sb.Remove(context.Background()))
		}
	})
	require.NoError(t, err)
	require.NoError(t, provision.Prepare(ctx, sb, tk))
	run := rp.Start(sb, tk, tr)
	_, err = run.To(ctx, k)
	require.NoError(t, err, "reset to k=%d", k)
	if k == 0 {
		v, err := verifier.Run(ctx, sb, tk)
		require.NoError(t, err)
		assert.False(t, v.Passed, "the verifier must reject the initial state")
	}
	_, err = run.To(ctx, tr.Len())
	require.NoError(t, err, "suffix from k=%d", k)
	v, err := verifier.Run(ctx, sb, tk)
	require.NoError(t, err)
	assert.True(t, v.Passed, "verifier after reset to k=%d and the reference suffix: exit %d\n%s", k, v.ExitCode, v.Output)
}
