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
	helper := recycletest.BuildIPCObjects(t)
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
	fresh := recycletest.Digest(t, first)
	eps := recycletest.Episodes(run.image)
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
