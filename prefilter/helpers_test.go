package prefilter_test

import (
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
)

// dockerRuntime returns the docker runtime with the named rbx images built,
// or skips when no engine answers.
func dockerRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	return dockertest.Runtime(tb, imgs...)
}

// copyDir copies the tree at src to dst.
func copyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	require.NoError(tb, os.CopyFS(dst, os.DirFS(src)))
	// os.CopyFS drops the executable bit that deploy.sh and friends need.
	require.NoError(tb, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return os.Chmod(filepath.Join(dst, rel), info.Mode().Perm())
	}))
}

// startOTP serves the deploy-otp task's OTP service on loopback.
func startOTP(tb testing.TB, taskPath string) string {
	tb.Helper()
	tk, err := task.Load(taskPath)
	require.NoError(tb, err)
	secs, err := strconv.Atoi(tk.Env["OTP_PERIOD"])
	require.NoError(tb, err)
	srv, err := otp.NewServer(tk.Env["OTP_SECRET"], time.Duration(secs)*time.Second)
	require.NoError(tb, err)
	return serve(tb, srv)
}

// serve runs h on a loopback port until the test ends and returns its URL.
func serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	tb.Cleanup(func() { _ = hs.Close() })
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String()
}
