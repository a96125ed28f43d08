package kubernetes_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	helper := recycletest.BuildIPCObjects(t)
	total, refused := 0, 0
	for _, run := range []struct {
		image  string
		mode   sandbox.Mode
		rounds int
	}{
		{recycletest.Busybox, sandbox.ModeSession, 20},
		{recycletest.Debian, sandbox.ModeExec, 17},
	} {
		t.Run(filepath.Base(run.image)+"-"+string(run.mode), func(t *testing.T) {
			if n, err := strconv.Atoi(os.Getenv("RBX_RECYCLE_ROUNDS")); err == nil {
				run.rounds = n
			}
			spec := sandbox.Spec{Image: run.image, Mode: run.mode, Recycle: true, StepTimeout: 20 * time.Second}
			sb := create(t, rt, spec)
			fresh := recycletest.Digest(t, sb)
			eps := episodes(run.image)
			for round := 0; round < run.rounds; round++ {
				ep := eps[round%len(eps)]
				if ok, _ := recycletest.RunEpisode(t, sb, ep, helper); !ok {
					refused++
					sb = create(t, rt, spec)
					continue
				}
				recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, sb), fmt.Sprintf("round %d, after %s", round, ep.Name))
				total++
			}
		})
	}
	t.Logf("recycles: %d proved fresh, %d refused as designed", total, refused)
	if !t.Failed() && os.Getenv("RBX_RECYCLE_ROUNDS") == "" {
		assert.GreaterOrEqual(t, total, 30)
	}
}

// episodes are recycletest's, but one: a recycle here is an exec, and the
// runtime reads the sandbox's /etc/group to start any exec, so an episode
// that made it a directory cannot be recycled: the exec fails, Recycle
// refuses and the pod is removed.
func episodes(image string) []recycletest.Episode {
	eps := recycletest.Episodes(image)
	for i := range eps {
		if eps[i].Name == "etc-group-dir" {
			eps[i].Refused = true
		}
	}
	return eps
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
