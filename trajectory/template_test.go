package trajectory_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestReferences(t *testing.T) {
	refs := trajectory.References("a {{vars.x}} b {{ services.api }} {{.State}} {{vars.}} {{ vars.y")
	require.Len(t, refs, 4)
	assert.Equal(t, trajectory.Ref{Scope: "vars", Name: "x", Raw: "{{vars.x}}", Offset: 2}, refs[0])
	assert.Equal(t, trajectory.Ref{Scope: "services", Name: "api", Raw: "{{ services.api }}", Offset: 15}, refs[1])
	assert.False(t, refs[2].Valid())
	assert.Equal(t, "{{vars.}}", refs[2].Raw)
	assert.Equal(t, "{{ vars.y", refs[3].Raw)
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"otp": "123456", "x": "{{vars.otp}}"}
	services := map[string]string{"api": "http://127.0.0.1:8181", "my-svc": "http://h"}
	tests := []struct {
		in, want string
		err      error
	}{
		{in: "plain", want: "plain"},
		{in: "{{vars.otp}}", want: "123456"},
		{in: "code={{ vars.otp }}&again={{\tvars.otp\t}}", want: "code=123456&again=123456"},
		{in: "{{services.api}}/v1", want: "http://127.0.0.1:8181/v1"},
		{in: "{{services.my-svc}}", want: "http://h"},
		{in: "{{vars.x}}", want: "{{vars.otp}}"}, // values are not expanded again
		{in: "{{.State}} {{ env.HOME }} {{", want: "{{.State}} {{ env.HOME }} {{"},
		{in: "{{vars.nope}}", err: trajectory.ErrUndefined},
		{in: "{{services.otp}}", err: trajectory.ErrUndefined},
		{in: "{{vars.my-var}}", err: trajectory.ErrMalformedRef},
		{in: "{{vars.otp", err: trajectory.ErrMalformedRef},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := trajectory.Expand(tc.in, vars, services)
			if tc.err != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, tc.err), "got %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := trajectory.Expand("x {{ vars.nope }}", nil, nil)
	assert.EqualError(t, err, "undefined reference {{ vars.nope }}")
}

func TestStepExpand(t *testing.T) {
	body := `{"code": "{{vars.otp}}"}`
	step := trajectory.Step{
		Action:  trajectory.KindHTTP,
		Method:  "POST",
		URL:     "{{services.api}}/codes",
		Headers: map[string]string{"X-Otp": "{{vars.otp}}"},
		Body:    &body,
	}
	got, err := step.Expand(map[string]string{"otp": "42"}, map[string]string{"api": "http://h"})
	require.NoError(t, err)
	assert.Equal(t, "http://h/codes", got.URL)
	assert.Equal(t, "42", got.Headers["X-Otp"])
	assert.Equal(t, `{"code": "42"}`, *got.Body)
	assert.Equal(t, "{{vars.otp}}", step.Headers["X-Otp"], "the original step is untouched")
	assert.Equal(t, `{"code": "{{vars.otp}}"}`, body)

	_, err = trajectory.Step{Action: trajectory.KindShell, Env: map[string]string{"A": "{{vars.b}}"}}.Expand(nil, nil)
	assert.EqualError(t, err, "env.A: undefined reference {{vars.b}}")
}

func TestFileMode(t *testing.T) {
	tests := []struct {
		mode string
		want uint32
		ok   bool
	}{{"", 0o644, true}, {"0755", 0o755, true}, {"600", 0o600, true}, {"0o755", 0, false}, {"9", 0, false}, {"07777", 0, false}}
	for _, tc := range tests {
		m, err := trajectory.Step{Mode: tc.mode}.FileMode()
		if !tc.ok {
			assert.Error(t, err, tc.mode)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, uint32(m.Perm()), tc.mode)
	}
}
