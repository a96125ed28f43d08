package images

import (
	"context"
	"testing"

	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
)

// TestIntegrationBuildAgent: the agent image is named by the binary's
// content, holds it as /rbx-agent, and is not rebuilt when present.
func TestIntegrationBuildAgent(t *testing.T) {
	cli := engine(t)
	ctx := context.Background()
	data := []byte("#!fake agent " + t.Name())
	ref, err := BuildAgent(ctx, cli, data)
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true}) })
	require.NoError(t, err)
	assert.Equal(t, recycle.AgentImageRef(data), ref)
	assert.Regexp(t, `^rbx/agent:[0-9a-f]{12}$`, ref)
	info, err := cli.ImageInspect(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, []string{"/rbx-agent"}, info.Config.Entrypoint)
	again, err := BuildAgent(ctx, cli, data)
	require.NoError(t, err)
	assert.Equal(t, ref, again)
	info2, err := cli.ImageInspect(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, info.ID, info2.ID, "present: not imported again")
	assert.NotEqual(t, ref, recycle.AgentImageRef(append(data, '!')), "another binary, another name")
}
