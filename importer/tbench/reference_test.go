package tbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReferenceErrexit(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		cmds    []string
		checked []bool
		warns   int
	}{
		{"set -e dropped, later steps checked", "cd /tmp\nset -e\nfalse\necho ok\n",
			[]string{"cd /tmp", "false", "echo ok"}, []bool{false, true, true}, 0},
		{"set -o errexit", "set -o errexit\nls\n", []string{"ls"}, []bool{true}, 0},
		{"set -euo pipefail keeps pipefail", "set -euo pipefail\nlog() { echo \"$*\"; }\nlog hi\n",
			[]string{`set -o pipefail # rbx: from solution.sh:1 "set -euo pipefail"; errexit and nounset are replay semantics, not shell state`, "log() { echo \"$*\"; }", "log hi"},
			[]bool{true, true, true}, 1},
		{"set -Eeuo pipefail", "set -Eeuo pipefail\nx\n",
			[]string{`set -E -o pipefail # rbx: from solution.sh:1 "set -Eeuo pipefail"; errexit and nounset are replay semantics, not shell state`, "x"}, []bool{true, true}, 1},
		{"set +e stops checking", "set -e\na\nset +e\nb\n", []string{"a", "b"}, []bool{true, false}, 0},
		{"set -x stays shell state", "set -x\na\n", []string{"set -x", "a"}, []bool{false, false}, 0},
		{"set -e; a splits into two commands", "set -e; a\n", []string{"a"}, []bool{true}, 0},
		{"set inside a block is a command", "if x; then set -e; fi\nb\n", []string{"if x; then set -e; fi", "b"}, []bool{false, false}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := SplitScript(tt.script)
			require.NoError(t, err)
			tr, warns := reference("x", &Source{SolutionFile: "solution.sh"}, cmds)
			require.Len(t, tr.Steps, len(tt.cmds))
			for i, s := range tr.Steps {
				assert.Equal(t, tt.cmds[i], s.Command)
				if tt.checked[i] {
					require.NotNil(t, s.Observation, "step %d", i)
					assert.Equal(t, 0, *s.Observation.ExitCode)
				} else {
					assert.Nil(t, s.Observation, "step %d", i)
				}
			}
			assert.Len(t, warns, tt.warns)
		})
	}
}

func TestOldFormatDescriptions(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		warns            int
	}{
		{"base", "descriptions:\n  - key: base\n    description: Do the thing.\n", "Do the thing.", 0},
		{"several", "descriptions:\n  - key: hard\n    description: Hard.\n  - key: base\n    description: Base.\n", "Base.", 1},
		{"none", "author: x\n", "", 1},
		{"instruction wins", "instruction: New.\ndescriptions:\n  - key: base\n    description: Old.\n", "New.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"task.yaml": tt.yaml, "solution.sh": "echo hi\n"})
			src, err := Read(dir)
			require.NoError(t, err)
			assert.Equal(t, tt.want, src.Instruction)
			assert.Len(t, src.Warnings, tt.warns, "%v", src.Warnings)
		})
	}
}
