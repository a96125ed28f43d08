package session_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestKeeperExec(t *testing.T) {
	tests := []struct {
		name        string
		def         sandbox.Mode
		req         sandbox.ExecRequest
		wantFresh   bool
		wantTimeout time.Duration
		wantOutput  string
		wantErr     error
	}{
		{name: "default exec mode", def: sandbox.ModeExec, req: sandbox.ExecRequest{Command: "x"}, wantFresh: true, wantTimeout: time.Minute, wantOutput: "fresh"},
		{name: "request's own timeout", def: sandbox.ModeExec, req: sandbox.ExecRequest{Command: "x", Timeout: time.Second}, wantFresh: true, wantTimeout: time.Second, wantOutput: "fresh"},
		{name: "request's exec mode", def: sandbox.ModeSession, req: sandbox.ExecRequest{Command: "x", Mode: sandbox.ModeExec}, wantFresh: true, wantTimeout: time.Minute, wantOutput: "fresh"},
		{name: "session mode", def: sandbox.ModeSession, req: sandbox.ExecRequest{Command: "printf hi"}, wantOutput: "hi"},
		{name: "unknown mode", def: sandbox.ModeSession, req: sandbox.ExecRequest{Command: "x", Mode: "tty"}, wantErr: sandbox.ErrInvalidSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := session.NewKeeper("sb", &fakeHost{t: t}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			t.Cleanup(k.Close)
			var freshReq *sandbox.ExecRequest
			fresh := func(_ context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
				freshReq = &req
				return sandbox.ExecResult{Output: []byte("fresh")}, nil
			}
			res, err := k.Exec(context.Background(), tt.req, tt.def, time.Minute, fresh)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), "exec in sb: ")
				assert.Nil(t, freshReq)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOutput, string(res.Output))
			if !tt.wantFresh {
				assert.Nil(t, freshReq)
				assert.True(t, k.Active(), "a session shell was opened")
				return
			}
			require.NotNil(t, freshReq)
			assert.Equal(t, sandbox.ModeExec, freshReq.Mode)
			assert.Equal(t, tt.wantTimeout, freshReq.Timeout)
		})
	}
}
