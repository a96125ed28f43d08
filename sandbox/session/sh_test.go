package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestSh(t *testing.T) {
	boom := errors.New("exec failed")
	tests := []struct {
		name       string
		run        func(session.Sh) error
		err        error
		wantScript string
	}{
		{name: "kill step", run: func(sh session.Sh) error { return sh.KillStep(context.Background(), "x12-") }, wantScript: session.KillScript("x12-")},
		{name: "kill pid", run: func(sh session.Sh) error { return sh.KillPID(context.Background(), "42") }, wantScript: "kill -9 42"},
		{name: "error passes", run: func(sh session.Sh) error { return sh.KillPID(context.Background(), "7") }, err: boom, wantScript: "kill -9 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			sh := session.Sh(func(_ context.Context, script string) error { got = script; return tt.err })
			assert.Equal(t, tt.err, tt.run(sh))
			assert.Equal(t, tt.wantScript, got)
		})
	}
}
