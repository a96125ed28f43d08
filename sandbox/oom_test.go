package sandbox_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestMarkOOM(t *testing.T) {
	tests := []struct {
		name      string
		res       sandbox.ExecResult
		seen      int64
		count     int64
		want      bool
		wantSeen  int64
		wantCount bool // whether the counter is read
	}{
		{name: "other status is not read", res: sandbox.ExecResult{ExitCode: 1}, count: 5, wantCount: false},
		{name: "timed out is not read", res: sandbox.ExecResult{ExitCode: 137, TimedOut: true}, count: 5, wantCount: false},
		{name: "counter grew", res: sandbox.ExecResult{ExitCode: 137}, count: 1, want: true, wantSeen: 1, wantCount: true},
		{name: "counter unchanged: a plain kill", res: sandbox.ExecResult{ExitCode: 137}, seen: 2, count: 2, wantSeen: 2, wantCount: true},
		{name: "counter unreadable", res: sandbox.ExecResult{ExitCode: 137}, seen: 0, count: -1, wantSeen: 0, wantCount: true},
		{name: "opened sandbox: any kill on record counts", res: sandbox.ExecResult{ExitCode: 137}, seen: -1, count: 3, want: true, wantSeen: 3, wantCount: true},
		{name: "opened sandbox: no kill on record", res: sandbox.ExecResult{ExitCode: 137}, seen: -1, count: 0, wantSeen: 0, wantCount: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			seen, read := tt.seen, false
			res := tt.res
			sandbox.MarkOOM(&res, &mu, &seen, func() int64 { read = true; return tt.count })
			assert.Equal(t, tt.want, res.OOMKilled)
			assert.Equal(t, tt.wantSeen, seen)
			assert.Equal(t, tt.wantCount, read)
		})
	}
}
