package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestRecordResult: how a file tool's recorded result reads. A refusal
// (permission, path) or an edit whose text the file did not hold is
// recorded as a failure replay must meet again; a tool declining on a
// precondition of its own becomes a noop; a success leaves no
// observation.
func TestRecordResult(t *testing.T) {
	w := trajectory.Step{Action: trajectory.KindWriteFile, Path: "/etc/issue"}
	r := trajectory.Step{Action: trajectory.KindReadFile, Path: "/var/log/app.log"}
	e := trajectory.Step{Action: trajectory.KindEditFile, Path: "/repo/x.py", Old: ptr("x"), New: ptr("y")}
	sh := trajectory.Step{Action: trajectory.KindShell, Command: "cat /etc/shadow"}
	const (
		ok      = "success"
		refused = "refused"
		failed  = "failed"
		noop    = "noop"
	)
	tests := []struct {
		name   string
		step   trajectory.Step
		result string
		want   string
	}{
		{"python OSError", w, "[Errno 13] Permission denied: '/etc/issue'", refused},
		{"tool error naming the file", w, "Error writing /etc/issue: Permission denied", refused},
		{"shell's words", w, "bash: /etc/issue: Read-only file system", refused},
		{"node's errno", w, "EACCES: permission denied, open '/etc/issue'", refused},
		{"editor's missing path", e, "ERROR:\nInvalid `path` parameter: /repo/x.py. The path /repo/x.py does not exist. Please provide a valid path.", refused},
		{"claude code's missing file", e, "<tool_use_error>File does not exist.</tool_use_error>", refused},
		{"missing file", r, "cat: /var/log/app.log: No such file or directory", refused},
		{"is a directory", r, "[Errno 21] Is a directory: '/var/log/app.log'", refused},
		{"success", w, "File created successfully at: /etc/issue", ok},
		{"content mentioning a refusal", r, "2026-12-01 ssh: Permission denied (publickey)\nnext line", ok},
		{"content on a later line", r, "line one\ncat: /var/log/app.log: Permission denied", ok},
		{"text not found", e, "Error: No replacement was performed, old_str `x` did not appear verbatim in /repo/x.py.", failed},
		{"text ambiguous", e, "No replacement was performed. Multiple occurrences of old_str `x` in lines [1, 4]. Please ensure it is unique", failed},
		{"claude code's text not found", e, "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>", failed},
		{"claude code's matches", e, "<tool_use_error>Found 3 matches of the string to replace, but replace_all is false.</tool_use_error>", failed},
		{"insert line outside", e, "Invalid `insert_line` parameter: 90. It should be within the range of lines of the file: [0, 12]", failed},
		{"create over a file", w, "File already exists at: /etc/issue. Cannot overwrite files using command `create`.", noop},
		{"not read yet", e, "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", noop},
		{"same text", e, "No replacement was performed, old_str `x` is the same as new_str `x`.", noop},
		{"linter", e, "Your proposed edit has introduced new syntax error(s).\n" + notApplied, noop},
		{"a shell step is never a file refusal", sh, "cat: /etc/shadow: Permission denied", ok},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want == refused, fileRefusal(&tc.step, tc.result))
			s := tc.step
			recordResult(&s, tc.result)
			switch {
			case tc.want == noop:
				assert.Equal(t, trajectory.KindNoop, s.Action)
				assert.Contains(t, s.Note, "not applied by the agent's tool")
			case tc.want == refused || tc.want == failed:
				assert.Equal(t, tc.step.Action, s.Action)
				if assert.NotNil(t, s.Observation) && assert.NotNil(t, s.Observation.ExitCode) {
					assert.Equal(t, 1, *s.Observation.ExitCode)
					assert.Equal(t, tc.result, s.Observation.Output)
				}
			case s.Action != trajectory.KindShell:
				assert.Equal(t, tc.step.Action, s.Action)
				assert.Nil(t, s.Observation, "a file action's success stays in the messages")
			}
		})
	}
}

// TestFlaggedFailure: a failure the tool flagged (ATIF's is_error,
// OpenHands' error observation) is kept as a failure when replay meets it
// again, and is a noop when it was the tool's own precondition.
func TestFlaggedFailure(t *testing.T) {
	e := trajectory.Step{Action: trajectory.KindEditFile, Path: "/repo/x.py", Old: ptr("x"), New: ptr("y"), Tokens: 3}
	s := e
	recordFailure(&s, "String to replace not found in file.")
	require.NotNil(t, s.Observation)
	assert.Equal(t, 1, *s.Observation.ExitCode)
	s = e
	recordFailure(&s, "File has been modified since read, either by the user or by a linter. Read it again.")
	assert.Equal(t, trajectory.KindNoop, s.Action)
	assert.Equal(t, 3, s.Tokens)
	assert.Contains(t, s.Note, `edit_file /repo/x.py not applied by the agent's tool: "File has been modified since read`)
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
