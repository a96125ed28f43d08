package replayer_test

import (
	"context"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestRefusedFileActions: a file action the sandbox refuses to the task's
// user is an action failure that reads as the shell's; a recorded failure
// is expected on replay (of the same kind when the recording names one),
// and a success where the recording failed is a divergence.
func TestRefusedFileActions(t *testing.T) {
	write := func(o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindWriteFile, Path: "f", Content: ptr("x"), Observation: o}
	}
	edit := func(o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindEditFile, Path: "f", Old: ptr("a"), New: ptr("b"), Observation: o}
	}
	editOf := func(old string, o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindEditFile, Path: "f", Old: ptr(old), New: ptr("b"), Observation: o}
	}
	read := func(o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindReadFile, Path: "f", Observation: o}
	}
	tests := []struct {
		name     string
		step     trajectory.Step
		refuse   syscall.Errno // 0: the sandbox allows it
		reason   reason.Reason // "" for no divergence
		contains string
	}{
		{"refused, recorded as a success", write(nil), syscall.EACCES, reason.Action, "write /workspace/f: Permission denied"},
		{"refused, recorded exit 0", write(obs("", 0)), syscall.EACCES, reason.Action, "Permission denied"},
		{"refused as recorded", write(obs("bash: f: Permission denied", 1)), syscall.EACCES, "", ""},
		{"refused as recorded, no words", write(obs("", 1)), syscall.EPERM, "", ""},
		{"refused, of another kind", write(obs("Permission denied", 1)), syscall.ENOENT, reason.Output, "the action refused: Permission denied"},
		{"recorded failure, live success", write(obs("Permission denied", 1)), 0, reason.ExitCode, "it succeeded"},
		{"edit refused as recorded", edit(obs("Error: Permission denied", 1)), syscall.EACCES, "", ""},
		{"edit refused", edit(nil), syscall.EACCES, reason.Action, "read /workspace/f: Permission denied"},
		{"read refused as recorded", read(obs("cat: f: Permission denied", 1)), syscall.EACCES, "", ""},
		{"read missing as recorded", read(obs("No such file or directory", 1)), syscall.ENOENT, "", ""},
		{"read recorded failure, live success", read(obs("", 1)), 0, reason.ExitCode, "it succeeded"},
		{"edit's text missing as recorded", editOf("z", obs("No replacement was performed, old_str `z` did not appear verbatim in f.", 1)), 0, "", ""},
		{"edit's text missing, recorded as refused", editOf("z", obs("Permission denied", 1)), 0, reason.Output, "the action refused: Permission denied"},
		{"edit's text missing, not recorded", editOf("z", nil), 0, reason.Action, `old text "z" not found`},
		{"edit recorded missing its text, live success", edit(obs("No replacement was performed", 1)), 0, reason.ExitCode, "it succeeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replayer.New()
			require.NoError(t, err)
			sb := newFake(nil)
			sb.files["f"] = "a\n"
			if tc.refuse != 0 {
				sb.refuse = map[string]syscall.Errno{"f": tc.refuse}
			}
			steps := []trajectory.Step{tc.step, shell("echo after", nil)}
			rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: steps}, len(steps))
			if tc.reason == "" {
				require.NoError(t, err)
				assert.Equal(t, 1, rep.Steps[0].ExitCode, "the refusal is the step's outcome")
				assert.Contains(t, sb.ran, "echo after")
				return
			}
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.reason, se.Reason)
			assert.Equal(t, 0, se.Index)
			assert.Contains(t, err.Error(), tc.contains)
			if tc.refuse != 0 || tc.step.Action == trajectory.KindEditFile && *tc.step.Old != "a" {
				assert.Equal(t, "a\n", sb.files["f"], "nothing written")
			}
		})
	}
}

// TestDoRefused: a policy's refused file action is an action failure
// whose observation reads as the shell's, never the sandbox's failure.
func TestDoRefused(t *testing.T) {
	r, err := replayer.New()
	require.NoError(t, err)
	sb := newFake(nil)
	sb.refuse = map[string]syscall.Errno{"/etc/issue": syscall.EACCES}
	run := r.Start(sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{shell("echo a", nil)}})
	res, err := run.Do(context.Background(), trajectory.Step{Action: trajectory.KindWriteFile, Path: "/etc/issue", Content: ptr("x")})
	require.Error(t, err)
	assert.False(t, reason.IsInfra(err))
	o, oerr := replayer.Observe(res, err)
	require.NoError(t, oerr)
	assert.Equal(t, "write /etc/issue: Permission denied", o.Error)
	assert.Equal(t, 1, *o.ExitCode)
	_, ok := sb.files["/etc/issue"]
	assert.False(t, ok)

	// An edit whose read is allowed and whose write is refused reads as
	// the edit's refusal.
	sb.files["/etc/hosts"] = "a\n"
	sb.readOnly = map[string]syscall.Errno{"/etc/hosts": syscall.EACCES}
	res, err = run.Do(context.Background(), trajectory.Step{Action: trajectory.KindEditFile, Path: "/etc/hosts", Old: ptr("a"), New: ptr("b")})
	o, oerr = replayer.Observe(res, err)
	require.NoError(t, oerr)
	assert.Equal(t, "edit /etc/hosts: Permission denied", o.Error)
	assert.Equal(t, "a\n", sb.files["/etc/hosts"])
}

// TestUnknownCodeNotRunnable: a shell step with no recorded exit code
// that bash cannot run (126, 127) diverges, unless its recorded output
// shows the same.
func TestUnknownCodeNotRunnable(t *testing.T) {
	missing := sandbox.ExecResult{ExitCode: 127, Output: []byte("bash: find_file: command not found\n")}
	tests := []struct {
		name   string
		o      *trajectory.Observation
		diverg bool
	}{
		{"no observation", nil, true},
		{"output only, another", &trajectory.Observation{Output: "Found 2 matches for \"x\""}, true},
		{"output only, the same", &trajectory.Observation{Output: "bash: find_file: command not found"}, false},
		{"recorded 127", obs("bash: find_file: command not found", 127), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replayer.New()
			require.NoError(t, err)
			sb := newFake(map[string]sandbox.ExecResult{"find_file x": missing})
			steps := []trajectory.Step{shell("find_file x", tc.o)}
			_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: steps}, 1)
			if !tc.diverg {
				require.NoError(t, err)
				return
			}
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, reason.ExitCode, se.Reason)
			assert.Contains(t, se.Error(), "command not found")
		})
	}
}
