package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestExecRequestResolve(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name        string
		ctx         context.Context
		req         sandbox.ExecRequest
		wantMode    sandbox.Mode
		wantTimeout time.Duration
		wantErr     error
	}{
		{name: "defaults", ctx: context.Background(), req: sandbox.ExecRequest{Command: "true"},
			wantMode: sandbox.ModeSession, wantTimeout: time.Minute},
		{name: "the request's own", ctx: context.Background(), req: sandbox.ExecRequest{Mode: sandbox.ModeExec, Timeout: time.Second},
			wantMode: sandbox.ModeExec, wantTimeout: time.Second},
		{name: "unknown mode", ctx: context.Background(), req: sandbox.ExecRequest{Mode: "shell"}, wantErr: sandbox.ErrInvalidSpec},
		{name: "cancelled", ctx: done, req: sandbox.ExecRequest{}, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.req.Resolve(tc.ctx, sandbox.ModeSession, time.Minute)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantMode, got.Mode)
			assert.Equal(t, tc.wantTimeout, got.Timeout)
			assert.Equal(t, tc.req.Command, got.Command)
		})
	}
}

func TestTerminalRequestCheck(t *testing.T) {
	err := sandbox.TerminalRequest{}.Check("sb1")
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
	assert.Contains(t, err.Error(), "sb1")
	assert.NoError(t, sandbox.TerminalRequest{Argv: []string{"/bin/sh"}}.Check("sb1"))
}
