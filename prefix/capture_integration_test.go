package prefix_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

func loadExample(t *testing.T, name string) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	trajs, err := trajectory.Load("../examples/" + name + "/trajectory.json")
	require.NoError(t, err)
	tp, err := trajs[0].ResolveTaskPath()
	require.NoError(t, err)
	tk, err := task.Load(tp)
	require.NoError(t, err)
	return tk, trajs[0]
}

func prepared(t *testing.T, rt sandbox.Runtime, tk *task.Task) sandbox.Sandbox {
	t.Helper()
	ctx := context.Background()
	sb, err := rt.Create(ctx, provision.Spec(tk))
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	require.NoError(t, provision.Prepare(ctx, sb, tk))
	return sb
}

// fingerprint is what must match between the captured and the restored
// sandbox: file contents, modes and owners under the workdir, cwd and
// environment (not mtimes: each sandbox got its files when it was created).
const fingerprint = `find /workspace -exec stat -c '%n %a %s %u %g' {} + | sort; find /workspace -type f -exec md5sum {} + | sort; pwd; env | grep -v -e '^RBX_STEP=' -e '^HOSTNAME=' -e '^_=' | sort`

// TestIntegrationCaptureApply replays fix-tests to k in one sandbox,
// captures the state, applies it to a fresh one: the two read the same,
// and the reference suffix then passes the verifier.
func TestIntegrationCaptureApply(t *testing.T) {
	tk, traj := loadExample(t, "fix-tests")
	rt := dockertest.Runtime(t, tk.Image)
	rp, err := replayer.New()
	require.NoError(t, err)
	ctx := context.Background()
	for _, k := range []int{5, 9, 16} {
		src := prepared(t, rt, tk)
		s, err := prefix.Begin(ctx, src, true)
		require.NoError(t, err)
		base, err := s.Scan(ctx)
		require.NoError(t, err)
		run := rp.Start(src, tk, traj)
		for i := 0; i < k; i++ {
			_, err := run.Through(ctx, i+1)
			require.NoError(t, err)
			require.NoError(t, s.Probe(ctx, i))
		}
		st, err := s.Capture(ctx, base, k-1, 64<<20)
		require.NoError(t, err)
		t.Logf("k=%d: %d paths, %d deleted, %d bytes", k, st.Paths, len(st.Delete), st.Size())

		dst := prepared(t, rt, tk)
		require.NoError(t, st.Apply(ctx, dst))
		want, err := src.Exec(ctx, sandbox.ExecRequest{Command: fingerprint})
		require.NoError(t, err)
		got, err := dst.Exec(ctx, sandbox.ExecRequest{Command: fingerprint})
		require.NoError(t, err)
		assert.Equal(t, string(want.Output), string(got.Output), "k=%d", k)

		run2 := rp.StartAt(dst, tk, traj, k, traj.Vars)
		_, err = run2.To(ctx, traj.Len())
		require.NoError(t, err)
		v, err := verifier.Run(ctx, dst, tk)
		require.NoError(t, err)
		assert.True(t, v.Passed, "k=%d: %s", k, v.Output)
	}
}
