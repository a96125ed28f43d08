package trajectory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestParseLargeJSONL parses a long single-line trajectory: positions are
// tracked incrementally, so this stays linear in the input size.
func TestParseLargeJSONL(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id": "big", "task": "x", "steps": [`)
	const n = 20000
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"action": "shell", "command": "echo é", "observation": {"output": "é\n", "exit_code": 0}}`)
	}
	b.WriteString("]}\n")
	ts, err := trajectory.Parse("big.jsonl", []byte(b.String()), true)
	require.NoError(t, err)
	require.Equal(t, n, ts[0].Len())
}
