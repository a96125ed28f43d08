package docker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationSessionFiles: file actions go through the session shell
// whatever the agent did to it (functions shadowing the tools, a PATH
// without base64 — then the archive API takes over), and keep modes.
func TestIntegrationSessionFiles(t *testing.T) {
	rt := newRuntime(t)
	tests := []struct{ name, setup string }{
		{"clean session", "true"},
		{"shadowing functions", "base64() { echo evil; }; mkdir() { return 1; }; cd /tmp"},
		{"no base64 on PATH", "export PATH=/nonexistent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Image: testImage})
			ctx := context.Background()
			_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: tc.setup})
			require.NoError(t, err)
			data := []byte("line one\n\x00\x01binary\xff\n")
			require.NoError(t, sb.WriteFile(ctx, "deep/new/file.bin", data, 0o750))
			got, err := sb.ReadFile(ctx, "deep/new/file.bin")
			require.NoError(t, err)
			assert.Equal(t, data, got)
			require.NoError(t, sb.WriteFile(ctx, "deep/new/file.bin", []byte("edited"), 0)) // keeps 0750
			_, err = sb.ReadFile(ctx, "deep/new/missing")
			assert.ErrorIs(t, err, sandbox.ErrNotFound)
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "/bin/stat -c %a /workspace/deep/new/file.bin; /bin/cat /workspace/deep/new/file.bin", Mode: sandbox.ModeExec})
			require.NoError(t, err)
			assert.Equal(t, "750\nedited", string(res.Output))
		})
	}
}
