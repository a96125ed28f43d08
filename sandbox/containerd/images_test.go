package containerd_test

import (
	"context"
	"testing"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// TestIntegrationImageImportIdempotent: an image imported from Docker is
// labelled with Docker's image id and unpacked; a second EnsureImage finds
// it current and does nothing.
func TestIntegrationImageImportIdempotent(t *testing.T) {
	rt := newRuntime(t) // imports testImage when it is missing or stale
	ctx := context.Background()
	again, err := rt.EnsureImage(ctx, testImage)
	require.NoError(t, err)
	assert.False(t, again, "a second EnsureImage neither builds nor imports")

	id, present, err := dockertest.Runtime(t).ImageID(ctx, testImage)
	require.NoError(t, err)
	require.True(t, present)
	nctx := namespaces.WithNamespace(ctx, containerd.DefaultNamespace)
	img, err := rt.Client().GetImage(nctx, "docker.io/"+testImage)
	require.NoError(t, err)
	assert.Equal(t, id, img.Labels()[containerd.LabelSourceID], "keyed by Docker's image id")
	unpacked, err := img.IsUnpacked(nctx, rt.Snapshotter())
	require.NoError(t, err)
	assert.True(t, unpacked)

	present, err = rt.ImagePresent(ctx, testImage)
	require.NoError(t, err)
	assert.True(t, present)
	present, err = rt.ImagePresent(ctx, "rbx/does-not-exist:never")
	require.NoError(t, err)
	assert.False(t, present)
}
