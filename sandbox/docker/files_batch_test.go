package docker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationWriteFiles: one archive writes nested new files (relative
// and absolute), keeps modes, and leaves an existing directory's mode alone.
func TestIntegrationWriteFiles(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{Image: testImage})
	ctx := context.Background()
	require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{
		{Path: "a/b/run.sh", Data: []byte("#!/bin/sh\necho ran\n"), Mode: 0o755},
		{Path: "/tmp/x/data.bin", Data: []byte{0, 1, 2}},
		{Path: "top.txt", Data: []byte("top")},
	}))
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "./a/b/run.sh && cat top.txt && stat -c %a /tmp /tmp/x/data.bin a/b/run.sh"})
	require.NoError(t, err)
	assert.Equal(t, "ran\ntop1777\n644\n755\n", string(res.Output))
	data, err := sb.ReadFile(ctx, "/tmp/x/data.bin")
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 2}, data)
}
