package docker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// hostileRun is one image and mode of the hostile test: sandboxes
// recycled rounds times each, cycling through the episodes.
type hostileRun struct {
	image     string
	mode      sandbox.Mode
	sandboxes int
	rounds    int
	// fullWalks: recycles walk every writable mount
	// (docker.WithScopedRecycle(false)), else they are scoped by the
	// upper layer where the engine allows it.
	fullWalks bool
}

// hostileRuns: 241 rounds, of which 2 in 17 are refused by design, so
// over 200 recycles proved fresh. Debian's larger tree (13k entries, a
// digest hashes 290 MB) gets fewer rounds, each episode twice per mode.
var hostileRuns = []hostileRun{
	{busybox, sandbox.ModeSession, 2, 60, false},
	{debian, sandbox.ModeSession, 2, 17, false},
	{busybox, sandbox.ModeExec, 1, 70, true},
	{debian, sandbox.ModeExec, 1, 17, false},
}

// TestIntegrationRecycleHostile runs hostile episodes (planted files
// anywhere writable, replaced tools and loader, left and signal-proof
// processes, IPC objects, changed modes and owners, deleted and swapped
// entries, planted symlinks) and checks after every Recycle that the
// sandbox's digest is a fresh sandbox's, or that Recycle refused an
// episode the design cannot restore.
func TestIntegrationRecycleHostile(t *testing.T) {
	rt := newRecycleRuntime(t, busybox, debian)
	full := newRecycleRuntimeWith(t, []docker.Option{docker.WithScopedRecycle(false)}, busybox, debian)
	helper := buildIPCObjects(t)
	var mu sync.Mutex
	total, refused := 0, 0
	t.Run("group", func(t *testing.T) {
		for _, run := range hostileRuns {
			t.Run(filepath.Base(run.image)+"-"+string(run.mode), func(t *testing.T) {
				t.Parallel()
				on := rt
				if run.fullWalks {
					on = full
				}
				n, r := run.do(t, on, helper)
				mu.Lock()
				total, refused = total+n, refused+r
				mu.Unlock()
			})
		}
	})
	t.Logf("recycles: %d proved fresh, %d refused as designed, 0 differences", total, refused)
	// Every sandbox of an image but the first was recorded from a scoped
	// listing where recycles are scoped: their rounds prove the image's
	// entries lazily (recycle.FromScoped).
	whole, _, scopedListings := rt.FreshListings()
	t.Logf("fresh listings: %d whole, %d scoped by the upper layer", whole, scopedListings)
	if scopedHere(t) {
		assert.GreaterOrEqual(t, scopedListings, 2, "the second sandboxes of busybox and debian")
	}
	if !t.Failed() && os.Getenv("RBX_RECYCLE_ROUNDS") == "" {
		assert.GreaterOrEqual(t, total, 200)
	}
}

// do runs one hostileRun and returns the recycles proved fresh and refused.
func (run hostileRun) do(t *testing.T, rt *docker.Runtime, helper []byte) (proved, refused int) {
	if n, err := strconv.Atoi(os.Getenv("RBX_RECYCLE_ROUNDS")); err == nil { // shorter runs while debugging
		run.rounds = n
	}
	spec := recyclable(run.image, run.mode)
	first := newSandbox(t, rt, spec)
	fresh := digest(t, first)
	eps := episodes(run.image)
	for i := 0; i < run.sandboxes; i++ {
		sb := first
		if i > 0 {
			sb = newSandbox(t, rt, spec)
			requireSameDigest(t, fresh, digest(t, sb), "second fresh sandbox")
		}
		for round := 0; round < run.rounds; round++ {
			ep := eps[(round+i*7)%len(eps)]
			ok := runEpisode(t, sb, ep, helper, !run.fullWalks && scopedHere(t))
			if !ok {
				refused++
				sb = newSandbox(t, rt, spec) // the refused one is removed at cleanup
				continue
			}
			requireSameDigest(t, fresh, digest(t, sb), fmt.Sprintf("round %d, after %s", round, ep.name))
			proved++
		}
	}
	return proved, refused
}

// runEpisode does ep in sb and recycles it; it returns false when Recycle
// refused (as ep expects).
func runEpisode(t *testing.T, sb sandbox.Sandbox, ep episode, helper []byte, scoped bool) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if strings.Contains(ep.cmd, "/tmp/ipcobjects") {
		require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "/tmp/ipcobjects", Data: helper, Mode: 0o755}}))
	}
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: ep.cmd})
	require.NoError(t, err, ep.name)
	require.Contains(t, string(res.Output), "ok", "%s: %s", ep.name, res.Output)
	rep, err := sb.(sandbox.Recycler).Recycle(ctx)
	if err == nil {
		require.Equal(t, scoped, rep.Scoped > 0, "%s: scoped by the upper layer (%d directories)", ep.name, rep.Scoped)
	}
	if ep.refused {
		require.ErrorIs(t, err, sandbox.ErrRecycle, ep.name)
		var re *sandbox.RecycleError
		require.True(t, errors.As(err, &re))
		return false
	}
	require.NoError(t, err, ep.name)
	return true
}

// requireSameDigest fails with the lines that differ.
func requireSameDigest(t *testing.T, want, got, what string) {
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

// buildIPCObjects builds the static IPC helper (testdata/ipcobjects).
func buildIPCObjects(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ipcobjects")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/ipcobjects")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, string(msg))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}
