package docker_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestIntegrationFiles(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec})
	ctx := context.Background()
	binary := make([]byte, 256*4)
	for i := range binary {
		binary[i] = byte(i)
	}
	tests := []struct {
		name, path, abs string
		data            []byte
		mode            uint32
		wantMode        string
	}{
		{"relative nested", "a/b/c.txt", "/workspace/a/b/c.txt", []byte("hello\n"), 0, "644"},
		{"absolute new root dir", "/opt/x/y/run.sh", "/opt/x/y/run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755, "755"},
		{"binary in tmp", "/tmp/blob.bin", "/tmp/blob.bin", binary, 0o600, "600"},
		{"empty", "empty", "/workspace/empty", nil, 0, "644"},
		{"overwrite", "a/b/c.txt", "/workspace/a/b/c.txt", []byte("second"), 0, "644"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, sb.WriteFile(ctx, tt.path, tt.data, fs.FileMode(tt.mode)))
			got, err := sb.ReadFile(ctx, tt.abs)
			require.NoError(t, err)
			assert.Equal(t, len(tt.data), len(got))
			assert.Equal(t, string(tt.data), string(got))
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "stat -c %a " + tt.abs})
			require.NoError(t, err)
			assert.Equal(t, tt.wantMode+"\n", string(res.Output))
		})
	}
	// Existing parents keep their mode: /tmp is still world-writable and sticky.
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "stat -c %a /tmp /workspace/a"})
	require.NoError(t, err)
	assert.Equal(t, "1777\n755\n", string(res.Output))

	_, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "ln -s a/b/c.txt link"})
	require.NoError(t, err)
	got, err := sb.ReadFile(ctx, "link")
	require.NoError(t, err)
	assert.Equal(t, "second", string(got))

	for _, p := range []string{"missing.txt", "/nope/missing.txt"} {
		_, err = sb.ReadFile(ctx, p)
		require.ErrorIs(t, err, sandbox.ErrNotFound, p)
	}
	_, err = sb.ReadFile(ctx, "a")
	require.Error(t, err, "a directory is not a file")
	require.Error(t, sb.WriteFile(ctx, "a/b/c.txt/d", []byte("x"), 0), "a file is not a directory")
}
