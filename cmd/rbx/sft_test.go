package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/store"
)

func TestSFTExport(t *testing.T) {
	const traj = "../../examples/fix-tests/trajectory.json"
	code, out, errOut := runRbx(t, "sft", "export", "--trajectory", traj, "--from", "14")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, "steps 14, 15, 16")
	var ex struct {
		Messages []map[string]any `json:"messages"`
		Tools    []any            `json:"tools"`
		Metadata struct{ Step, From int }
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &ex))
	assert.Equal(t, 14, ex.Metadata.Step)
	assert.Equal(t, "system", ex.Messages[0]["role"])
	last := ex.Messages[len(ex.Messages)-1]
	assert.Equal(t, "assistant", last["role"])
	assert.NotEmpty(t, last["tool_calls"], "the target is a tool call")
	assert.NotEmpty(t, ex.Tools)

	// Driven by the stuck flags of a state database.
	db := filepath.Join(t.TempDir(), "state.db")
	e, st, err := store.OpenEngine(context.Background(), db, nil)
	require.NoError(t, err)
	require.NoError(t, e.Register(curriculum.TaskInfo{ID: "fix-tests", T: 17}))
	for range 40 {
		require.NoError(t, e.Observe("fix-tests", 15, false))
	}
	require.NoError(t, st.Close())
	outFile := filepath.Join(t.TempDir(), "sft.jsonl")
	code, _, errOut = runRbx(t, "sft", "export", "--trajectory", traj, "--state", db, "--out", outFile)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "stuck at checkpoints [15]")
	f, err := os.Open(outFile)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		require.True(t, json.Valid(sc.Bytes()))
	}
	assert.Equal(t, 2, n, "steps 15 and 16")

	code, _, _ = runRbx(t, "sft", "export", "--trajectory", traj, "--from", "40")
	assert.Equal(t, exitUsage, code)
	code, _, _ = runRbx(t, "sft", "export", "--trajectory", traj)
	assert.Equal(t, exitUsage, code)
}
