package containerd_test

import (
	"context"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// onlyLabelled restricts Reap to this test's sandboxes.
type onlyLabelled struct {
	sandbox.Runtime
	label map[string]string
}

func (o onlyLabelled) List(ctx context.Context, sel map[string]string) ([]sandbox.Info, error) {
	all := maps.Clone(o.label)
	maps.Copy(all, sel)
	sel = all
	return o.Runtime.List(ctx, sel)
}

// TestIntegrationReapOrphan: a sandbox whose owner is a dead process of
// this host is removed by sandbox.Reap (what `rbx gc` runs), container,
// task and snapshot; a live owner's sandbox is left alone.
func TestIntegrationReapOrphan(t *testing.T) {
	rt := newRuntime(t)
	host, err := os.Hostname()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	deadRT, err := containerd.New(ctx, containerd.WithOwner(host+"_99999999_1"), containerd.WithImageSource(dockertest.Runtime(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = deadRT.Close() })
	orphan := newSandbox(t, deadRT, sandbox.Spec{Mode: sandbox.ModeExec})
	live := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec})

	scoped := onlyLabelled{Runtime: rt, label: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}}
	removed, err := sandbox.Reap(ctx, scoped)
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, orphan.ID(), removed[0].ID)
	left, err := scoped.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, live.ID(), left[0].ID)

	_, err = rt.Open(ctx, orphan.ID())
	require.ErrorIs(t, err, sandbox.ErrNotFound)
	_, err = rt.Client().SnapshotService(rt.Snapshotter()).Stat(rt.Namespaced(ctx), orphan.ID())
	assert.Error(t, err, "the snapshot went with the container")
}
