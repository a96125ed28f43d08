package probe_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// example loads a bundled example's task and reference trajectory.
func example(t *testing.T, name string) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	trs, err := trajectory.Load(filepath.Join("..", "examples", name, "trajectory.json"))
	require.NoError(t, err)
	tk, err := task.Load(filepath.Join("..", "examples", name, "task.yaml"))
	require.NoError(t, err)
	return tk, trs[0]
}

// otpService serves the deploy-otp example's OTP service on loopback.
func otpService(t *testing.T) string {
	t.Helper()
	srv, err := otp.NewServer("rbx-demo-secret", 30*time.Second)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

func localRuntime(t *testing.T) sandbox.Runtime {
	t.Helper()
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// dockerRuntime returns the docker runtime with the named rbx images built,
// or skips when no engine answers.
func dockerRuntime(t *testing.T, imgs ...string) sandbox.Runtime {
	return dockertest.Runtime(t, imgs...)
}

// newProber returns a Prober on rt whose resetter is closed at test end.
func newProber(t *testing.T, rt sandbox.Runtime, pol policy.Policy, services map[string]string, opts ...probe.Option) *probe.Prober {
	t.Helper()
	rp, err := replayer.New(replayer.WithServices(services))
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(4), pool.WithConcurrency(2)))
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = rs.Close(ctx)
	})
	p, err := probe.New(rs, pol, append([]probe.Option{probe.WithConcurrency(4)}, opts...)...)
	require.NoError(t, err)
	return p
}
