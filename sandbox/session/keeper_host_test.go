package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestHostFuncs(t *testing.T) {
	errRunning, errSettled := errors.New("checked"), errors.New("settled")
	tests := []struct {
		name        string
		settled     func(context.Context) error
		wantSettled error
	}{
		{name: "settling of its own", settled: func(context.Context) error { return errSettled }, wantSettled: errSettled},
		{name: "no settling: CheckRunning", wantSettled: errRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var script string
			h := session.HostFuncs{
				CheckRunningFn: func(context.Context) error { return errRunning },
				SettledGoneFn:  tt.settled,
				ShFn:           func(_ context.Context, s string) error { script = s; return nil },
			}
			var _ session.Host = h
			assert.ErrorIs(t, h.SettledGone(context.Background()), tt.wantSettled)
			assert.ErrorIs(t, h.CheckRunning(context.Background()), errRunning)
			require.NoError(t, h.Kill(context.Background(), "1234"))
			assert.Contains(t, script, "1234", "Kill runs the kill script for the pid through ShFn")
		})
	}
}
