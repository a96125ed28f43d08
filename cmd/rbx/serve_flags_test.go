package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeRefusesBadFlags: usage errors (exit 2) before anything starts,
// notably a non-loopback address without a token.
func TestServeRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no tasks", []string{"serve"}, "--tasks DIR is required"},
		{"exposed without token", []string{"serve", "--tasks", dir, "--addr", "0.0.0.0:8700"}, "not a loopback address"},
		{"empty token", []string{"serve", "--tasks", dir, "--token-file", empty}, "is empty"},
		{"bad strategy", []string{"serve", "--tasks", dir, "--strategy", "random"}, "--strategy"},
		{"bad share", []string{"serve", "--tasks", dir, "--max-intervention-share", "2"}, "--max-intervention-share"},
		{"bad refresh repeats", []string{"serve", "--tasks", dir, "--refresh-references", "--refresh-repeats", "0"}, "--refresh-repeats"},
		{"no tasks found", []string{"serve", "--tasks", dir, "--runtime", "local"}, "no task with a valid reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tt.args, Streams{Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUsage, code, errOut.String())
			assert.Contains(t, errOut.String(), tt.msg)
		})
	}
}
