package docker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

const (
	busybox = recycletest.Busybox
	debian  = recycletest.Debian
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
	// setfcap grants the sandbox CAP_SETFCAP and adds the episodes that
	// need it (recycletest.CapEpisodes).
	setfcap bool
}

// hostileRuns: 270 rounds, of which 1 in 24 episodes is refused by
// design, so over 200 recycles proved fresh. Debian's larger tree (13k
// entries, a digest hashes 290 MB) gets fewer rounds, each episode at
// least once per mode; the SETFCAP run adds the setcap episode.
var hostileRuns = []hostileRun{
	{busybox, sandbox.ModeSession, 2, 60, false, false},
	{debian, sandbox.ModeSession, 2, 24, false, false},
	{busybox, sandbox.ModeExec, 1, 70, true, false},
	{debian, sandbox.ModeExec, 1, 24, false, false},
	{busybox, sandbox.ModeSession, 1, 8, false, true},
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
	helper := recycletest.BuildHelpers(t)
	var mu sync.Mutex
	total, refused := 0, 0
	t.Run("group", func(t *testing.T) {
		for _, run := range hostileRuns {
			name := filepath.Base(run.image) + "-" + string(run.mode)
			if run.setfcap {
				name += "-setfcap"
			}
			t.Run(name, func(t *testing.T) {
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
func (run hostileRun) do(t *testing.T, rt *docker.Runtime, helper recycletest.Helpers) (proved, refused int) {
	if n, err := strconv.Atoi(os.Getenv("RBX_RECYCLE_ROUNDS")); err == nil { // shorter runs while debugging
		run.rounds = n
	}
	spec := recyclable(run.image, run.mode)
	eps := recycletest.Episodes(run.image)
	if run.setfcap {
		spec.CapAdd = []string{"SETFCAP"}
		eps = append(recycletest.CapEpisodes(run.image), eps...)
	}
	if len(eps) == 0 {
		t.Skip("no episode left by $RBX_RECYCLE_EPISODES")
	}
	first := newSandbox(t, rt, spec)
	fresh := recycletest.Digest(t, first)
	for i := 0; i < run.sandboxes; i++ {
		sb := first
		if i > 0 {
			sb = newSandbox(t, rt, spec)
			recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, sb), "second fresh sandbox")
		}
		for round := 0; round < run.rounds; round++ {
			ep := eps[(round+i*7)%len(eps)]
			ok, rep := recycletest.RunEpisode(t, sb, ep, helper)
			if ok {
				require.Equal(t, !run.fullWalks && scopedHere(t), rep.Scoped > 0, "%s: scoped by the upper layer (%d directories)", ep.Name, rep.Scoped)
			}
			if !ok {
				refused++
				sb = newSandbox(t, rt, spec) // the refused one is removed at cleanup
				continue
			}
			recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, sb), fmt.Sprintf("round %d, after %s", round, ep.Name))
			proved++
		}
	}
	return proved, refused
}

// TestIntegrationRecycleAlternatingTasks alternates two tasks of one
// class in one recycled sandbox: task A leaves extended attributes, ACLs,
// inode flags and a hard link on image directories, files and mount
// roots; task B, in the next session shell, must list them exactly as the
// fresh sandbox did — over 21 recycles.
func TestIntegrationRecycleAlternatingTasks(t *testing.T) {
	rt := newRecycleRuntime(t, busybox)
	helpers := recycletest.BuildHelpers(t)
	sb := newSandbox(t, rt, recyclable(busybox, sandbox.ModeSession))
	n := recycletest.RunAlternating(t, sb, helpers, recycletest.Rounds(10))
	t.Logf("%d recycles, task B saw none of task A's metadata", n)
}
