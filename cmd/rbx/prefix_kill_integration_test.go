package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegrationServeKill9PrefixCache: kill -9 `rbx serve` while its
// prefix cache holds entries and staged sandboxes; `rbx gc` then finds and
// removes every container it left, and a restart serves from a cold cache
// (the cache lives in memory: it leaves no file, image or snapshot).
func TestIntegrationServeKill9PrefixCache(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS("../../examples/run-sh-path")))
	state := filepath.Join(dir, "state.db")
	args := []string{"--tasks", tasks, "--runtime", "docker", "--state", state, "--pool", "2", "--prefix-cache", "on"}
	old := startServe(t, rt, bin, args...)
	for i, want := range []string{"built", "hit"} {
		var rr struct {
			Episodes []struct {
				ID      string
				Timings struct{ Cache string }
			}
		}
		require.Equal(t, http.StatusOK, post(old.url+"/v1/reset", map[string]any{"task": "run-sh-path", "checkpoint": 9}, &rr), "reset %d", i)
		assert.Equal(t, want, rr.Episodes[0].Timings.Cache, "reset %d", i)
	}
	require.Eventually(t, func() bool { return metric(t, old.url, "rbx_prefix_cache_staged") >= 1 }, 60*time.Second, 100*time.Millisecond,
		"sandboxes staged from the cache")
	assert.Equal(t, 1.0, metric(t, old.url, "rbx_prefix_cache_entries"))
	oldPID := old.cmd.Process.Pid
	require.NoError(t, old.cmd.Process.Signal(syscall.SIGKILL))
	_ = old.cmd.Wait()
	left := ownedBy(t, rt, oldPID)
	require.GreaterOrEqual(t, len(left), 3, "the killed server left its pool, its open episodes and its staged sandboxes")

	// A create the dead process still had in flight in the engine lands
	// after a first gc: the next sweep removes it (as serve's own reap loop
	// does).
	assert.Eventually(t, func() bool {
		out, err := exec.Command(bin, "gc", "--runtime", "docker").CombinedOutput()
		require.NoError(t, err, "%s", out)
		return len(ownedBy(t, rt, oldPID)) == 0
	}, 60*time.Second, time.Second, "rbx gc left a container of the killed server")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.True(t, e.Name() == "tasks" || strings.HasPrefix(e.Name(), "state.db"), "unexpected file %s", e.Name())
	}

	fresh := startServe(t, rt, bin, args...)
	var rr struct {
		Episodes []struct{ Timings struct{ Cache string } }
	}
	require.Equal(t, http.StatusOK, post(fresh.url+"/v1/reset", map[string]any{"task": "run-sh-path", "checkpoint": 9}, &rr))
	assert.Equal(t, "built", rr.Episodes[0].Timings.Cache, "a restart starts with an empty cache")
}

// metric returns one unlabelled series' value from /metrics (-1 if absent).
func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, l)
			return f
		}
	}
	return -1
}
