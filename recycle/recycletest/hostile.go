// Package recycletest holds the hostile recycling test every recycling
// backend runs: episodes a policy could run as root to leave state behind,
// and the check that a recycled sandbox's digest (the agent's: every
// path's type, mode, owner, size and content, the processes, the IPC
// objects) is a fresh sandbox's.
package recycletest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Digester is a recyclable sandbox whose agent digests it.
type Digester interface {
	Digest(ctx context.Context) (string, error)
}

// Digest returns the agent's digest of sb (a Digester).
func Digest(tb testing.TB, sb sandbox.Sandbox) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, ok := sb.(Digester)
	require.True(tb, ok, "%T has no Digest", sb)
	out, err := d.Digest(ctx)
	require.NoError(tb, err)
	return out
}

// Helpers are the static helpers episodes copy into a sandbox, by the
// path an episode names them at.
type Helpers map[string][]byte

// BuildHelpers builds the static helpers: ipcobjects (for images without
// ipcmk) and xattrs (for images without setfattr, setfacl, setcap,
// chattr; used on every image alike).
func BuildHelpers(t *testing.T) Helpers {
	return Helpers{
		"/tmp/ipcobjects": BuildStatic(t, "github.com/rbx-sandbox/rbx/recycle/recycletest/ipcobjects"),
		XattrsPath:        BuildStatic(t, "github.com/rbx-sandbox/rbx/recycle/recycletest/xattrs"),
	}
}

// copyHelpers writes into sb the helpers cmd names.
func copyHelpers(ctx context.Context, t *testing.T, sb sandbox.Sandbox, cmd string, helpers Helpers) {
	t.Helper()
	var files []sandbox.File
	for p, data := range helpers {
		if strings.Contains(cmd, p) {
			files = append(files, sandbox.File{Path: p, Data: data, Mode: 0o755})
		}
	}
	if len(files) > 0 {
		require.NoError(t, sb.WriteFiles(ctx, files))
	}
}

// RunEpisode does ep in sb and recycles it. It returns false when Recycle
// refused (as ep expects), and the recycle's report.
func RunEpisode(t *testing.T, sb sandbox.Sandbox, ep Episode, helpers Helpers) (bool, sandbox.RecycleReport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	copyHelpers(ctx, t, sb, ep.Cmd, helpers)
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: ep.Cmd})
	require.NoError(t, err, ep.Name)
	require.Contains(t, string(res.Output), "ok", "%s: %s", ep.Name, res.Output)
	rep, err := sb.(sandbox.Recycler).Recycle(ctx)
	if ep.Refused {
		require.ErrorIs(t, err, sandbox.ErrRecycle, ep.Name)
		var re *sandbox.RecycleError
		require.True(t, errors.As(err, &re))
		return false, rep
	}
	require.NoError(t, err, ep.Name)
	return true, rep
}

// RequireSameDigest fails with the lines that differ.
func RequireSameDigest(t *testing.T, want, got, what string) {
	t.Helper()
	if want == got {
		return
	}
	w, g := lineSet(want), lineSet(got)
	var diff []string
	for l := range w {
		if !g[l] {
			diff = append(diff, "- "+l)
		}
	}
	for l := range g {
		if !w[l] {
			diff = append(diff, "+ "+l)
		}
	}
	if len(diff) > 40 {
		diff = diff[:40]
	}
	require.Fail(t, "digest differs from a fresh sandbox's", "%s:\n%s", what, strings.Join(diff, "\n"))
}

func lineSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		m[l] = true
	}
	return m
}

// BuildStatic builds the Go program pkg (an import path) without cgo, so
// that it runs in any sandbox image, and returns the binary.
func BuildStatic(t *testing.T, pkg string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), path.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "build %s: %s", pkg, msg)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}
