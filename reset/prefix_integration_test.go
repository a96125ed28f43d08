package reset_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
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
	require.GreaterOrEqual(t, len(paths), 3)
	var out []example
	for _, p := range paths {
		trajs, err := trajectory.Load(p)
		require.NoError(t, err)
		tp, err := trajs[0].ResolveTaskPath()
		require.NoError(t, err)
		tk, err := task.Load(tp)
		require.NoError(t, err)
		out = append(out, example{name: filepath.Base(filepath.Dir(p)), task: tk, traj: trajs[0]})
	}
	return out
}

// countingOTP serves the example's OTP service and counts the codes it
// hands out.
func countingOTP(t *testing.T, tk *task.Task) (string, *atomic.Int64) {
	t.Helper()
	secs, err := strconv.Atoi(tk.Env["OTP_PERIOD"])
	require.NoError(t, err)
	srv, err := otp.NewServer(tk.Env["OTP_SECRET"], time.Duration(secs)*time.Second)
	require.NoError(t, err)
	var n atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		srv.ServeHTTP(w, r)
	})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String(), &n
}

// logBuffer is a slog destination tests read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// cachedResetter is a resetter with a prefix cache whose log goes to buf.
func cachedResetter(t *testing.T, rt sandbox.Runtime, rp *replayer.Replayer, buf *logBuffer) (*reset.Resetter, *prefix.Cache) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(buf, nil))
	c, err := prefix.New(prefix.WithLogger(log))
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithPrefixCache(c), reset.WithLogger(log), reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r, c
}

// TestIntegrationPrefixCacheExamples: for every checkpoint of every
// example, a first reset builds the cache entry and a second is served
// from it (with the steps the cache may reuse: up to the OTP example's
// http step, which every reset calls again); the reference suffix then
// passes the verifier.
func TestIntegrationPrefixCacheExamples(t *testing.T) {
	exs := loadExamples(t)
	rt := dockerRuntime(t)
	for _, ex := range exs {
		if ex.task.Image != busybox {
			_, err := rt.EnsureImage(context.Background(), ex.task.Image)
			require.NoError(t, err)
		}
	}
	for _, ex := range exs {
		t.Run(ex.name, func(t *testing.T) {
			var opts []replayer.Option
			calls := &atomic.Int64{}
			if _, ok := ex.task.Services["otp"]; ok {
				var url string
				url, calls = countingOTP(t, ex.task)
				opts = append(opts, replayer.WithServices(map[string]string{"otp": url}))
			}
			rp, err := replayer.New(opts...)
			require.NoError(t, err)
			buf := &logBuffer{}
			r, c := cachedResetter(t, rt, rp, buf)
			ctx := context.Background()
			built := map[int]bool{} // entries by j
			for k := 0; k < ex.traj.Len(); k++ {
				if !ex.traj.ValidCheckpoint(k) {
					continue
				}
				want, _ := prefix.Limit(ex.traj, k)
				first := reset.CacheBuilt
				if built[want] {
					first = reset.CacheHit
				}
				built[want] = true
				for round, use := range []reset.CacheUse{first, reset.CacheHit} {
					before := calls.Load()
					ep, err := r.Reset(ctx, ex.task, ex.traj, k)
					require.NoError(t, err, "k=%d round %d", k, round)
					if want == 0 {
						assert.Contains(t, []reset.CacheUse{reset.CacheOff, reset.CacheBypass}, ep.Cache, "k=%d", k)
					} else {
						assert.Equal(t, use, ep.Cache, "k=%d round %d", k, round)
					}
					if use == reset.CacheHit && want > 0 {
						assert.Equal(t, want, ep.Cached, "k=%d", k)
					}
					require.Len(t, ep.Report.Steps, k, "k=%d: the report covers [0, k)", k)
					if k > 4 && ex.name == "deploy-otp" {
						assert.Equal(t, before+1, calls.Load(), "k=%d: the http step runs on every reset", k)
					}
					_, err = ep.Run.To(ctx, ex.traj.Len())
					require.NoError(t, err, "k=%d round %d: suffix", k, round)
					v, err := verifier.Run(ctx, ep.Sandbox, ex.task)
					require.NoError(t, err)
					assert.True(t, v.Passed, "k=%d round %d (%s): %s", k, round, ep.Cache, v.Output)
					r.Release(ep.Sandbox)
				}
			}
			st := c.Stats()
			assert.Zero(t, st.ApplyFailed)
			assert.Positive(t, st.Hits)
			if ex.name == "deploy-otp" {
				assert.Contains(t, buf.String(), "an http step")
			}
		})
	}
}
