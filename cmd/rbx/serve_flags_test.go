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
// notably a non-loopback address without a token, a token over plain HTTP
// there (unless --insecure), and the unisolated local runtime there.
func TestServeRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))
	tok := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tok, []byte("s3cret\n"), 0o600))
	cert, key := selfSigned(t, t.TempDir())
	exposed := []string{"serve", "--tasks", dir, "--addr", "0.0.0.0:8700", "--token-file", tok}
	with := func(extra ...string) []string { return append(append([]string{}, exposed...), extra...) }
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
		{"exposed token over plain HTTP", with(), "refusing to send the bearer token over plain HTTP"},
		{"exposed with --insecure: accepted", with("--insecure", "--runtime", "docker"), "no task with a valid reference"},
		{"exposed with TLS: accepted", with("--tls-cert", cert, "--tls-key", key, "--runtime", "docker"), "no task with a valid reference"},
		{"exposed local runtime", with("--tls-cert", cert, "--tls-key", key, "--runtime", "local"), "refusing to serve --runtime local"},
		{"exposed local runtime, insecure", with("--insecure", "--runtime", "local"), "refusing to serve --runtime local"},
		{"cert without key", []string{"serve", "--tasks", dir, "--tls-cert", cert}, "--tls-cert and --tls-key go together"},
		{"unreadable key pair", []string{"serve", "--tasks", dir, "--tls-cert", cert, "--tls-key", empty}, "--tls-key"},
		{"bad max episodes", []string{"serve", "--tasks", dir, "--max-episodes", "0"}, "--max-episodes"},
		{"wait for tasks without reload", []string{"serve", "--tasks", dir, "--wait-for-tasks", "--reload-interval", "0"}, "--wait-for-tasks needs --reload-interval"},
		{"empty tasks directory", []string{"serve", "--tasks", dir, "--tasks", ""}, "--tasks DIR is required"},
		{"bad decision", []string{"serve", "--tasks", dir, "--decision", "vote"}, "--decision"},
		{"bad alpha", []string{"serve", "--tasks", dir, "--alpha", "0.5"}, "--alpha"},
		{"bad sprt alpha", []string{"serve", "--tasks", dir, "--sprt-alpha", "0"}, "--sprt-alpha"},
		{"bad min successes", []string{"serve", "--tasks", dir, "--min-successes", "0"}, "--min-successes"},
		{"bad learn alpha", []string{"serve", "--tasks", dir, "--learn-alpha", "-0.1"}, "--learn-alpha"},
		{"bad min successes floor", []string{"serve", "--tasks", dir, "--min-successes-floor", "0"}, "--min-successes-floor"},
		{"learning off: accepted", []string{"serve", "--tasks", dir, "--learn-alpha", "0", "--runtime", "local"}, "no task with a valid reference"},
		{"min successes above window", []string{"serve", "--tasks", dir, "--window", "3"}, "min-successes 5 above window 3"},
		{"bad delta", []string{"serve", "--tasks", dir, "--delta", "0"}, "--delta"},
		{"bad window", []string{"serve", "--tasks", dir, "--window", "65"}, "--window"},
		{"theta above theta-high", []string{"serve", "--tasks", dir, "--theta", "0.7"}, "theta 0.7 above theta-high 0.625"},
		{"sprt outside (0, 1)", []string{"serve", "--tasks", dir, "--decision", "sprt", "--theta", "0.6", "--theta-high", "0.9", "--delta", "0.4"}, "theta 0.6 ± delta 0.4"},
		{"posterior rule ignores delta", []string{"serve", "--tasks", dir, "--theta", "0.6", "--theta-high", "0.9", "--delta", "0.4", "--runtime", "local"}, "no task with a valid reference"},
		{"bad rock network", []string{"serve", "--tasks", dir, "--rock-network", "host"}, "--rock-network"},
		{"bad rock ttl", []string{"serve", "--tasks", dir, "--rock-ttl", "0s"}, "--rock-ttl"},
		{"bad rock session idle", []string{"serve", "--tasks", dir, "--rock-session-idle", "-1s"}, "--rock-session-idle"},
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
