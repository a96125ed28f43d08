package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestFreshScript(t *testing.T) {
	tests := []struct {
		name string
		req  sandbox.ExecRequest
		want string
	}{
		{name: "command only", req: sandbox.ExecRequest{Command: "ls -l"}, want: "exec 2>&1\nls -l"},
		{name: "cwd fails like cd", req: sandbox.ExecRequest{Command: "pwd", Cwd: "/tmp/a b"}, want: "exec 2>&1\ncd -- '/tmp/a b' || exit\npwd"},
		{name: "cwd with a quote", req: sandbox.ExecRequest{Command: "pwd", Cwd: "it's"}, want: "exec 2>&1\ncd -- 'it'\\''s' || exit\npwd"},
		{name: "env is not in the script", req: sandbox.ExecRequest{Command: "env", Env: map[string]string{"A": "1"}}, want: "exec 2>&1\nenv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, session.FreshScript(tt.req))
		})
	}
}

func TestCheckEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr bool
	}{
		{name: "none", env: nil},
		{name: "valid names", env: map[string]string{"A": "1", "_b2": "x", "PATH": "/bin"}},
		{name: "leading digit", env: map[string]string{"1A": "x"}, wantErr: true},
		{name: "dash", env: map[string]string{"A-B": "x"}, wantErr: true},
		{name: "empty name", env: map[string]string{"": "x"}, wantErr: true},
		{name: "injection", env: map[string]string{"A=1; rm -rf /": "x"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := session.CheckEnv(tt.env)
			if !tt.wantErr {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, sandbox.ErrInvalidSpec)
			assert.Contains(t, err.Error(), "env name")
		})
	}
}

func TestNewMarker(t *testing.T) {
	a, b := session.NewMarker(), session.NewMarker()
	assert.NotEqual(t, a, b)
	for _, m := range []string{a, b} {
		assert.Regexp(t, `^x[0-9a-f]{16}-$`, m)
	}
}

func TestShellProbe(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		err     error
		want    string
		wantErr bool
	}{
		{name: "bash found", out: "/usr/bin/bash\n", want: "/usr/bin/bash"},
		{name: "no bash", out: "", want: "/bin/sh"},
		{name: "not a path", out: "bash: not found\n", want: "/bin/sh"},
		{name: "probe fails", err: errors.New("exec failed"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p session.ShellProbe
			calls := 0
			probe := func(context.Context) ([]byte, error) {
				calls++
				return []byte(tt.out), tt.err
			}
			got, err := p.Shell(context.Background(), probe)
			if tt.wantErr {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), "detect shell: "), err.Error())
				assert.ErrorIs(t, err, tt.err)
				_, _ = p.Shell(context.Background(), probe)
				assert.Equal(t, 2, calls, "a failed probe is not remembered")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := p.Shell(context.Background(), probe)
			require.NoError(t, err)
			assert.Equal(t, tt.want, again)
			assert.Equal(t, 1, calls, "probed once")
		})
	}
}
