package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestFileRefusal(t *testing.T) {
	w := trajectory.Step{Action: trajectory.KindWriteFile, Path: "/etc/issue"}
	r := trajectory.Step{Action: trajectory.KindReadFile, Path: "/var/log/app.log"}
	e := trajectory.Step{Action: trajectory.KindEditFile, Path: "/repo/x.py"}
	sh := trajectory.Step{Action: trajectory.KindShell, Command: "cat /etc/shadow"}
	tests := []struct {
		name   string
		step   trajectory.Step
		result string
		want   bool
	}{
		{"python OSError", w, "[Errno 13] Permission denied: '/etc/issue'", true},
		{"tool error naming the file", w, "Error writing /etc/issue: Permission denied", true},
		{"shell's words", w, "bash: /etc/issue: Read-only file system", true},
		{"editor's missing path", e, "ERROR:\nInvalid `path` parameter: /repo/x.py. The path /repo/x.py does not exist. Please provide a valid path.", true},
		{"missing file", r, "cat: /var/log/app.log: No such file or directory", true},
		{"is a directory", r, "[Errno 21] Is a directory: '/var/log/app.log'", true},
		{"success", w, "File created successfully at: /etc/issue", false},
		{"content mentioning a refusal", r, "2026-12-01 ssh: Permission denied (publickey)\nnext line", false},
		{"content on a later line", r, "line one\ncat: /var/log/app.log: Permission denied", false},
		{"another failure", e, "Error: No replacement was performed, old_str `x` did not appear verbatim in /repo/x.py.", false},
		{"a shell step is never a file refusal", sh, "cat: /etc/shadow: Permission denied", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, fileRefusal(&tc.step, tc.result))
			s := tc.step
			recordResult(&s, tc.result)
			if tc.want {
				if assert.NotNil(t, s.Observation) && assert.NotNil(t, s.Observation.ExitCode) {
					assert.Equal(t, 1, *s.Observation.ExitCode)
					assert.Equal(t, tc.result, s.Observation.Output)
				}
			} else if s.Action != trajectory.KindShell {
				assert.Nil(t, s.Observation, "a file action's success stays in the messages")
			}
		})
	}
}

// TestRejectedEditIsNoop: an edit SWE-agent's linter rejected left the
// file unchanged; imported as a noop, replay does not apply it.
func TestRejectedEditIsNoop(t *testing.T) {
	s := trajectory.Step{Action: trajectory.KindEditFile, Path: "/repo/a.py", Old: ptr("x"), New: ptr("y ="), Tokens: 7}
	recordResult(&s, "Your proposed edit has introduced new syntax error(s).\n...\nYour changes have NOT been applied. Please fix your edit command and try again.")
	assert.Equal(t, trajectory.KindNoop, s.Action)
	assert.Contains(t, s.Note, "edit_file /repo/a.py not applied")
	assert.Equal(t, 7, s.Tokens)
	assert.Nil(t, s.Old)
}

func ptr[T any](v T) *T { return &v }
