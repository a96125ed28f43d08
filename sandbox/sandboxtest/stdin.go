package sandboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testStdin: a command that reads its stdin gets end-of-file at once, in
// both modes: it neither hangs until the step timeout nor reads the text
// of later steps (the session shell's own input).
func (s *suite) testStdin(t *testing.T) {
	const timeout = 10 * time.Second
	tests := []struct{ cmd, want string }{
		{"cat; echo rc=$?", "rc=0\n"},
		{"read -r line; echo rc=$? line=$line", "rc=1 line=\n"},
		{"wc -c | tr -d ' '", "0\n"},
		{"head -n 1; echo done", "done\n"},
		{"sh -c 'read -r x || echo eof'", "eof\n"},
		{"while read -r l; do echo got $l; done; echo end", "end\n"},
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			for _, tc := range tests {
				start := time.Now()
				res := run(t, sb, sandbox.ExecRequest{Command: tc.cmd, Timeout: timeout})
				assert.False(t, res.TimedOut, "%s: waited for stdin", tc.cmd)
				assert.Less(t, time.Since(start), timeout/2, tc.cmd)
				assert.Equal(t, 0, res.ExitCode, tc.cmd)
				assert.Equal(t, tc.want, string(res.Output), tc.cmd)
			}
			res := runOK(t, sb, "echo next")
			assert.Equal(t, "next\n", string(res.Output), "later steps are intact")
		})
	}
}
