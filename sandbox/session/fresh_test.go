package session_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// freshStep is how the fake host's step behaves.
type freshStep struct {
	output   string
	code     int   // exit code delivered as the status
	never    bool  // the step never ends by itself
	startErr error // Start fails
	execErr  error // Finish reports a failed exec
	endedErr error // Ended reports the sandbox gone
	oom      bool  // Ended marks an OOM kill
	// startAfter > 0: the step says it runs (Proc.Started) this long
	// after Start returned, and ends endAfter after Start.
	startAfter, endAfter time.Duration
}

// freshFake records what session.Fresh asked of it.
type freshFake struct {
	step    freshStep
	mu      sync.Mutex
	marker  string
	killed  []string
	stopped bool
	closed  bool
	goneArg error
}

func (h *freshFake) Start(_ context.Context, marker string, _ sandbox.ExecRequest, out io.Writer) (session.Proc[int], error) {
	if h.step.startErr != nil {
		return session.Proc[int]{}, h.step.startErr
	}
	h.marker = marker
	_, _ = io.WriteString(out, h.step.output)
	status := make(chan int, 1)
	var started chan struct{}
	switch {
	case h.step.startAfter > 0:
		started = make(chan struct{})
		time.AfterFunc(h.step.startAfter, func() { close(started) })
		time.AfterFunc(h.step.endAfter, func() { status <- h.step.code })
	case !h.step.never:
		status <- h.step.code
	}
	return session.Proc[int]{
		Started: started,
		Status:  status,
		Finish:  func(code int) (int, error) { return code, h.step.execErr },
		Stop:    func() { h.mu.Lock(); h.stopped = true; h.mu.Unlock() },
		Close:   func() { h.mu.Lock(); h.closed = true; h.mu.Unlock() },
	}, nil
}

func (h *freshFake) Gone(_ context.Context, err error) error {
	h.goneArg = err
	return &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseRemoved}
}

func (h *freshFake) Ended(_ context.Context, res *sandbox.ExecResult) error {
	res.OOMKilled = h.step.oom
	return h.step.endedErr
}

func (h *freshFake) Kill(_ context.Context, marker string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.killed = append(h.killed, marker)
	return nil
}

func TestFreshRun(t *testing.T) {
	gone := &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseKilled}
	tests := []struct {
		name       string
		step       freshStep
		timeout    time.Duration
		cancel     bool
		cap        int
		want       sandbox.ExecResult
		wantErr    error  // errors.Is target
		wantErrMsg string // prefix
		wantKill   bool
	}{
		{
			name: "ends", step: freshStep{output: "hi\n", code: 3}, cap: 100,
			want: sandbox.ExecResult{Output: []byte("hi\n"), OutputBytes: 3, ExitCode: 3},
		},
		{
			name: "output capped", step: freshStep{output: "abcdef"}, cap: 4,
			want: sandbox.ExecResult{Output: []byte("abcd"), OutputBytes: 6, Truncated: true},
		},
		{
			name: "oom marked", step: freshStep{code: 137, oom: true}, cap: 100,
			want: sandbox.ExecResult{ExitCode: 137, OOMKilled: true},
		},
		{
			name: "sandbox died with the step", step: freshStep{code: 137, endedErr: gone}, cap: 100,
			want:    sandbox.ExecResult{ExitCode: 137},
			wantErr: sandbox.ErrSandboxGone, wantErrMsg: "exec in sb: ",
		},
		{
			name: "exec failed", step: freshStep{execErr: errors.New("stream broke")}, cap: 100,
			want:    sandbox.ExecResult{},
			wantErr: sandbox.ErrSandboxGone, wantErrMsg: "exec in sb: ",
		},
		{
			name: "start failed", step: freshStep{startErr: sandbox.ErrInvalidSpec},
			wantErr: sandbox.ErrInvalidSpec, wantErrMsg: "exec in sb: ",
		},
		{
			name: "timed out", step: freshStep{output: "partial", never: true}, timeout: 10 * time.Millisecond, cap: 100,
			want:     sandbox.ExecResult{Output: []byte("partial"), OutputBytes: 7, ExitCode: sandbox.ExitCodeTimeout, TimedOut: true},
			wantKill: true,
		},
		{
			// A step that runs late (an exec dialled through an API) has
			// its whole timeout from when it runs.
			name: "timeout counts from the start", step: freshStep{output: "late", code: 0, startAfter: 300 * time.Millisecond, endAfter: 350 * time.Millisecond},
			timeout: 200 * time.Millisecond, cap: 100,
			want: sandbox.ExecResult{Output: []byte("late"), OutputBytes: 4},
		},
		{
			name: "ended before it started", step: freshStep{code: 0, execErr: errors.New("upgrade refused"), startAfter: time.Hour, endAfter: 10 * time.Millisecond},
			timeout: time.Second, cap: 100,
			want:    sandbox.ExecResult{},
			wantErr: sandbox.ErrSandboxGone, wantErrMsg: "exec in sb: ",
		},
		{
			name: "started late, then timed out", step: freshStep{output: "partial", startAfter: 100 * time.Millisecond, endAfter: time.Hour},
			timeout: 100 * time.Millisecond, cap: 100,
			want:     sandbox.ExecResult{Output: []byte("partial"), OutputBytes: 7, ExitCode: sandbox.ExitCodeTimeout, TimedOut: true},
			wantKill: true,
		},
		{
			name: "cancelled", step: freshStep{never: true}, cancel: true, cap: 100,
			want:    sandbox.ExecResult{ExitCode: -1},
			wantErr: context.Canceled, wantErrMsg: "exec in sb: step cancelled: ",
			wantKill: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &freshFake{step: tt.step}
			f := session.Fresh[int]{ID: "sb", OutputCap: tt.cap, Log: slog.New(slog.DiscardHandler), Host: h}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(10*time.Millisecond, cancel)
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			res, err := f.Run(ctx, sandbox.ExecRequest{Command: "x", Timeout: timeout})
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				assert.True(t, strings.HasPrefix(err.Error(), tt.wantErrMsg), err.Error())
			} else {
				require.NoError(t, err)
			}
			res.Duration = 0
			assert.Equal(t, tt.want, res)
			if tt.step.startErr != nil {
				return
			}
			assert.Regexp(t, `^x[0-9a-f]{16}-$`, h.marker)
			assert.True(t, h.closed, "the stream is released")
			if tt.wantKill {
				assert.Equal(t, []string{h.marker}, h.killed)
				assert.True(t, h.stopped)
			} else {
				assert.Empty(t, h.killed)
				assert.False(t, h.stopped)
			}
			if tt.step.execErr != nil {
				assert.Equal(t, tt.step.execErr, h.goneArg, "a failed exec is explained by Gone")
			}
		})
	}
}
