package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runRBX(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Streams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestProbeUsageErrors(t *testing.T) {
	ex := filepath.Join("..", "..", "examples", "run-sh-path")
	tests := []struct {
		name string
		args []string
	}{
		{"noisy without noise", []string{"--policy", "noisy"}},
		{"bad noise", []string{"--policy", "noisy", "--noise", "4=2"}},
		{"bad policy", []string{"--policy", "oracle"}},
		{"bad output", []string{"--output", "xml"}},
		{"bad mode", []string{"--mode", "binary"}},
		{"bad checkpoints", []string{"--checkpoints", "every:0"}},
		{"bad threshold", []string{"--threshold", "0"}},
		{"openai without model", []string{"--policy", "openai", "--base-url", "http://127.0.0.1:1/v1"}},
		{"cmd without program", []string{"--policy", "cmd"}},
		{"unknown trajectory", []string{"--trajectory", "nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runRBX(t, append([]string{"probe", ex, "--runtime", "local"}, tt.args...)...)
			assert.Equal(t, exitUsage, code, errOut)
		})
	}
}

// TestProbeNoisyLocal runs the command end to end on the local runtime:
// JSON output, the bottleneck at the corrupted step, an SVG chart.
func TestProbeNoisyLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 48 rollouts")
	}
	chart := filepath.Join(t.TempDir(), "probe.svg")
	code, out, errOut := runRBX(t, "probe", filepath.Join("..", "..", "examples", "run-sh-path", "trajectory.json"),
		"--policy", "noisy", "--noise", "6=1", "--rollouts", "4", "--runtime", "local", "--chart", chart, "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var res struct {
		Bottleneck struct {
			K      int    `json:"k"`
			Action string `json:"action"`
		} `json:"bottleneck"`
		Total int `json:"total_rollouts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	assert.Equal(t, 6, res.Bottleneck.K)
	assert.Equal(t, "edit_file", res.Bottleneck.Action)
	assert.Equal(t, 48, res.Total)
	_, err := os.Stat(chart)
	assert.NoError(t, err)
	assert.Contains(t, errOut, "wrote chart")
}

// TestProbeCmdPolicyLocal: an external program that submits at once
// after one harmless action fails from every checkpoint before the move
// of run.sh to the root, and succeeds after it.
func TestProbeCmdPolicyLocal(t *testing.T) {
	script := `read ep; echo '{"action":"shell","command":"true"}'; read obs; echo '{"action":"submit"}'`
	code, out, errOut := runRBX(t, "probe", filepath.Join("..", "..", "examples", "run-sh-path"), "--policy", "cmd",
		"--cmd", script, "--rollouts", "1", "--checkpoints", "0,9,10,12", "--runtime", "local")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "bottleneck: k=9, step 9 shell mv scripts/run.sh run.sh")
}
