package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInterveneUsageErrors(t *testing.T) {
	ex := filepath.Join("..", "..", "examples", "run-sh-path")
	tests := []struct {
		name string
		args []string
	}{
		{"no policy", nil},
		{"bad policy", []string{"--policy", "oracle"}},
		{"bad intervener", []string{"--policy", "expert", "--intervener", "oracle"}},
		{"noisy intervener without noise", []string{"--policy", "expert", "--intervener", "noisy"}},
		{"bad output", []string{"--policy", "expert", "--output", "xml"}},
		{"bad budget", []string{"--policy", "expert", "--budget", "0"}},
		{"bad share", []string{"--policy", "expert", "--max-share", "1.5"}},
		{"bad checkpoint", []string{"--policy", "expert", "--checkpoint", "12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runRBX(t, append([]string{"intervene", ex, "--runtime", "local"}, tt.args...)...)
			assert.Equal(t, exitUsage, code, errOut)
		})
	}
}

// TestInterveneNoisyCLI runs the command on the local runtime: JSON
// summary on stdout, progress on stderr, the files in --out.
func TestInterveneNoisyCLI(t *testing.T) {
	out := t.TempDir()
	code, stdout, errOut := runRBX(t, "intervene", filepath.Join("..", "..", "examples", "run-sh-path"), "--runtime", "local",
		"--policy", "noisy", "--noise", "9=1", "--intervener", "expert", "--checkpoint", "4", "--rollouts", "2", "--budget", "1",
		"--out", out, "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var res struct {
		Rollouts, Failed, Rescued, Dropped, Kept int
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	assert.Equal(t, 2, res.Rollouts)
	assert.Equal(t, 2, res.Failed)
	assert.Equal(t, 2, res.Rescued)
	assert.Equal(t, 2, res.Kept)
	assert.Contains(t, errOut, "rollout 0: rescued (fork at t=5, 1 intervened of 8, share 0.12, attempt 1)")
	for _, f := range []string{"trajectories.jsonl", "openai.jsonl", "atif.jsonl"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		assert.Equal(t, 2, strings.Count(string(data), "\n"), f)
	}

	// The kept trajectories are native and export back with their mask.
	code, stdout, errOut = runRBX(t, "export", filepath.Join(out, "trajectories.jsonl"), "--id", "run-sh-path-ref-rti-0", "--format", "openai")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 2, strings.Count(stdout, `"intervened": true`), stdout)
}

// TestInterveneTaskID: the TASK argument is a task id looked up under
// --tasks as for probe; an unknown id is a usage error naming the close
// matches.
func TestInterveneTaskID(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	run := []string{"--runtime", "local", "--policy", "noisy", "--noise", "9=1", "--intervener", "expert",
		"--checkpoint", "4", "--rollouts", "1", "--budget", "1", "--output", "json"}
	code, stdout, errOut := runRBX(t, append([]string{"intervene", "run-sh-path", "--tasks", ex}, run...)...)
	require.Equal(t, exitOK, code, errOut)
	var res struct{ Rollouts, Rescued int }
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	assert.Equal(t, 1, res.Rollouts)
	assert.Equal(t, 1, res.Rescued)

	code, _, errOut = runRBX(t, append([]string{"intervene", "run-sh-pat", "--tasks", ex}, run...)...)
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "run-sh-path", "the close match is named")
}
