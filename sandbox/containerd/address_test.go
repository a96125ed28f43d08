package containerd

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestCandidates(t *testing.T) {
	tests := []struct {
		name, addr, env string
		want            []string
	}{
		{"explicit only", "/x.sock", "/env.sock", []string{"/x.sock"}},
		{"env only", "", "/env.sock", []string{"/env.sock"}},
		{"defaults", "", "", []string{StandardAddress, DockerAddress}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTAINERD_ADDRESS", tc.env)
			assert.Equal(t, tc.want, Candidates(tc.addr))
		})
	}
}

func TestAvailableNamesTheSocket(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.sock")
	err := Available(context.Background(), missing)
	require.ErrorIs(t, err, sandbox.ErrUnavailable)
	assert.Contains(t, err.Error(), missing)
}

func TestCapabilities(t *testing.T) {
	caps, err := capabilities([]string{"net_raw", "CAP_SYS_PTRACE", "KILL"})
	require.NoError(t, err)
	assert.Equal(t, []string{"CAP_CHOWN", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID",
		"CAP_NET_RAW", "CAP_SYS_PTRACE"}, caps)
	_, err = capabilities([]string{"ALL"})
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
}

func TestLabelFilter(t *testing.T) {
	assert.Equal(t, `labels."rbx.managed"=="true",labels."rbx.task"=="t-1"`, labelFilter(map[string]string{"rbx.task": "t-1"}))
}
