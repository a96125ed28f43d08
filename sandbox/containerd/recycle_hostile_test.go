package containerd_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
)

// TestIntegrationRecycleHostile is the docker backend's hostile test on
// containerd (recycletest's episodes: planted files anywhere writable,
// replaced tools and loader, left and signal-proof processes, IPC
// objects, changed modes and owners, deleted and swapped entries, planted
// symlinks): after every Recycle the sandbox's digest is a fresh
// sandbox's, or Recycle refused an episode the design cannot restore.
// Fewer rounds than Docker's (the design's proof is shared; this proves
// the containerd side: the agent's mount and exec, the image view).
func TestIntegrationRecycleHostile(t *testing.T) {
	rt := containerdtest.RecyclingRuntime(t, recycletest.Busybox, recycletest.Debian)
	helper := recycletest.BuildHelpers(t)
	runs := []struct {
		image  string
		mode   sandbox.Mode
		rounds int
	}{
		{recycletest.Busybox, sandbox.ModeSession, 40},
		{recycletest.Debian, sandbox.ModeSession, 17},
		{recycletest.Busybox, sandbox.ModeExec, 20},
	}
	var mu sync.Mutex
	total, refused := 0, 0
	t.Run("group", func(t *testing.T) {
		for _, run := range runs {
			t.Run(filepath.Base(run.image)+"-"+string(run.mode), func(t *testing.T) {
				t.Parallel()
				spec := sandbox.Spec{Image: run.image, Mode: run.mode, Recycle: true, StepTimeout: 20 * time.Second}
				first := recycletest.Digest(t, newSandbox(t, rt, spec))
				recycletest.RequireSameDigest(t, first, recycletest.Digest(t, newSandbox(t, rt, spec)), "second fresh sandbox")
				n, r := recycletest.RunRounds(t, func() sandbox.Sandbox { return newSandbox(t, rt, spec) },
					recycletest.ExecEpisodes(run.image), recycletest.Rounds(run.rounds), helper)
				mu.Lock()
				total, refused = total+n, refused+r
				mu.Unlock()
			})
		}
	})
	t.Logf("recycles: %d proved fresh, %d refused as designed", total, refused)
	if !t.Failed() && os.Getenv("RBX_RECYCLE_ROUNDS") == "" {
		assert.GreaterOrEqual(t, total, 60)
	}
}

// TestIntegrationRecycleAlternatingTasks: two tasks of one class take
// turns in one recycled sandbox; the second never sees the first's
// extended attributes, ACLs, flags or hard links (recycletest.RunAlternating).
func TestIntegrationRecycleAlternatingTasks(t *testing.T) {
	rt := containerdtest.RecyclingRuntime(t, recycletest.Busybox)
	helpers := recycletest.BuildHelpers(t)
	sb := newSandbox(t, rt, sandbox.Spec{Image: recycletest.Busybox, Mode: sandbox.ModeSession, Recycle: true, StepTimeout: 20 * time.Second})
	n := recycletest.RunAlternating(t, sb, helpers, recycletest.Rounds(10))
	t.Logf("%d recycles, task B saw none of task A's metadata", n)
}
