package kubernetes_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationRecycleHostile is the docker backend's hostile test on
// Kubernetes, fewer rounds (the proof is shared; this proves the pod's
// side: the agent installed by its init container as PID 1, recycles in
// an exec, the image's files read from the baseline container): after
// every Recycle the pod's digest is a fresh pod's, or Recycle refused an
// episode the design cannot restore.
func TestIntegrationRecycleHostile(t *testing.T) {
	rt := k8stest.RecyclingRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	helper := recycletest.BuildHelpers(t)
	total, refused := 0, 0
	for _, run := range []struct {
		image  string
		mode   sandbox.Mode
		rounds int
	}{
		{recycletest.Busybox, sandbox.ModeSession, 24}, // every episode once, the inode-metadata ones last
		{recycletest.Debian, sandbox.ModeExec, 17},
	} {
		t.Run(filepath.Base(run.image)+"-"+string(run.mode), func(t *testing.T) {
			spec := sandbox.Spec{Image: run.image, Mode: run.mode, Recycle: true, StepTimeout: 20 * time.Second}
			n, r := recycletest.RunRounds(t, func() sandbox.Sandbox { return create(t, rt, spec) },
				recycletest.ExecEpisodes(run.image), recycletest.Rounds(run.rounds), helper)
			total, refused = total+n, refused+r
		})
	}
	t.Logf("recycles: %d proved fresh, %d refused as designed", total, refused)
	if !t.Failed() && os.Getenv("RBX_RECYCLE_ROUNDS") == "" {
		assert.GreaterOrEqual(t, total, 30)
	}
}

// create creates a sandbox of spec, removed at test end.
func create(t *testing.T, rt sandbox.Runtime, spec sandbox.Spec) sandbox.Sandbox {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sb, err := rt.Create(ctx, spec)
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	return sb
}

// TestIntegrationRecycleAlternatingTasks: two tasks of one class take
// turns in one recycled pod; the second never sees the first's extended
// attributes, ACLs, flags or hard links (recycletest.RunAlternating).
func TestIntegrationRecycleAlternatingTasks(t *testing.T) {
	rt := k8stest.RecyclingRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	helpers := recycletest.BuildHelpers(t)
	sb := create(t, rt, sandbox.Spec{Image: recycletest.Busybox, Mode: sandbox.ModeSession, Recycle: true, StepTimeout: 20 * time.Second})
	n := recycletest.RunAlternating(t, sb, helpers, recycletest.Rounds(10))
	t.Logf("%d recycles, task B saw none of task A's metadata", n)
}
