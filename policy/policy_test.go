package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

func TestParseNoise(t *testing.T) {
	file := filepath.Join(t.TempDir(), "noise.txt")
	require.NoError(t, os.WriteFile(file, []byte("# step=p\n4=0.9\n*=0.05 7=0.5\n"), 0o644))
	jsonFile := filepath.Join(t.TempDir(), "noise.json")
	require.NoError(t, os.WriteFile(jsonFile, []byte(`{"3": 1, "*": 0.1}`), 0o644))
	tests := []struct {
		spec    string
		want    policy.Noise
		wantErr bool
	}{
		{spec: "4=0.9", want: policy.Noise{Steps: map[int]float64{4: 0.9}}},
		{spec: "*=0.1,2=0", want: policy.Noise{Steps: map[int]float64{2: 0}, Default: 0.1}},
		{spec: file, want: policy.Noise{Steps: map[int]float64{4: 0.9, 7: 0.5}, Default: 0.05}},
		{spec: jsonFile, want: policy.Noise{Steps: map[int]float64{3: 1}, Default: 0.1}},
		{spec: "4=1.5", wantErr: true},
		{spec: "x=0.5", wantErr: true},
		{spec: "no-such-file", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := policy.ParseNoise(tt.spec)
			if tt.wantErr {
				assert.ErrorIs(t, err, policy.ErrNoise)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCorrupt(t *testing.T) {
	content := "x"
	tests := []struct {
		in   trajectory.Step
		want trajectory.Step
	}{
		{trajectory.Step{Action: trajectory.KindWriteFile, Path: "run.sh", Content: &content},
			trajectory.Step{Action: trajectory.KindWriteFile, Path: "scripts/run.sh", Content: &content}},
		{trajectory.Step{Action: trajectory.KindEditFile, Path: "src/a.py"}, trajectory.Step{Action: trajectory.KindEditFile, Path: "src/scripts/a.py"}},
		{trajectory.Step{Action: trajectory.KindHTTP, Method: "GET", URL: "{{services.otp}}/otp"},
			trajectory.Step{Action: trajectory.KindHTTP, Method: "GET", URL: "{{services.otp}}/otp.rbx-wrong-endpoint"}},
		{trajectory.Step{Action: trajectory.KindShell, Command: "ls"}, trajectory.Step{Action: trajectory.KindShell, Command: policy.CleanupCommand, Cwd: "/w"}},
		{trajectory.Step{Action: trajectory.KindNoop}, trajectory.Step{Action: trajectory.KindShell, Command: policy.CleanupCommand, Cwd: "/w"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, policy.Corrupt(tt.in, "/w"), "%s", tt.in.Action)
	}
}

func TestExpertAndNoisyAgents(t *testing.T) {
	ctx := context.Background()
	ep := episode(t, 9)
	a, err := policy.Expert{}.Start(ctx, ep)
	require.NoError(t, err)
	var got []trajectory.Step
	for {
		s, done, err := a.Act(ctx, nil)
		require.NoError(t, err)
		if done {
			break
		}
		got = append(got, s)
	}
	assert.Equal(t, ep.Trajectory.Steps[9:], got)

	noisy := policy.Noisy{Noise: policy.Noise{Steps: map[int]float64{10: 1}}}
	a, err = noisy.Start(ctx, ep)
	require.NoError(t, err)
	s, _, _ := a.Act(ctx, nil)
	assert.Equal(t, ep.Trajectory.Steps[9], s, "p = 0: untouched")
	s, _, _ = a.Act(ctx, nil)
	assert.Equal(t, policy.CleanupCommand, s.Command, "p = 1: corrupted")
}

func TestPrefixMessages(t *testing.T) {
	ep := episode(t, 0)
	msgs, err := policy.PrefixMessages(ep)
	require.NoError(t, err)
	assert.Len(t, msgs, 2, "system and instruction")
	ep.K = ep.Trajectory.Len()
	msgs, err = policy.PrefixMessages(ep)
	require.NoError(t, err)
	assert.Len(t, msgs, 2+2*ep.Trajectory.Len(), "a call and a result per step")
	assert.Contains(t, string(msgs[len(msgs)-2]), `"call_11"`, "the last step's call")
}

func TestParseAction(t *testing.T) {
	s, err := tools.Parse("edit_file", []byte(`{"path":"a","old":"x","new":"y"}`))
	require.NoError(t, err)
	assert.Equal(t, "a", s.Path)
	for name, args := range map[string]string{
		"shell":      `{"command":"ls","observation":{}}`, // not the agent's to set
		"write_file": `{"path":"a"}`,
		"edit_file":  `{"path":"a","old":""}`,
		"http":       `[1]`,
		"rm":         `{}`,
	} {
		_, err := tools.Parse(name, []byte(args))
		assert.ErrorIs(t, err, tools.ErrMalformed, "%s %s", name, args)
	}
}

func TestCmdPolicy(t *testing.T) {
	script := `read ep; echo '{"action":"shell","command":"echo hi"}'; read obs; echo "$obs" >&2; echo 'not json'; read err; echo '{"action":"submit"}'; sleep 30`
	pol := policy.Cmd{Argv: []string{"sh", "-c", script}}
	ctx := context.Background()
	a, err := pol.Start(ctx, episode(t, 3))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	s, done, err := a.Act(ctx, nil)
	require.NoError(t, err)
	require.False(t, done)
	assert.Equal(t, "echo hi", s.Command)
	_, done, err = a.Act(ctx, &trajectory.Observation{Output: "hi\n"})
	require.NoError(t, err)
	assert.True(t, done, "the malformed line is answered with an error, then submit")
	require.NoError(t, a.Close(), "Close kills a program that does not exit")

	quiet, err := policy.Cmd{Argv: []string{"sh", "-c", "read ep"}}.Start(ctx, episode(t, 0))
	require.NoError(t, err)
	t.Cleanup(func() { _ = quiet.Close() })
	_, done, err = quiet.Act(ctx, nil)
	require.NoError(t, err)
	assert.True(t, done, "end of output ends the episode")
}
