package probe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestIntegrationProbeSessionLost: the expert replays a suffix holding a
// step that ends the session shell (errexit, exit, killing the process
// group); every rollout from a checkpoint before that step fails (p̂ = 0,
// no errors), although the task's verifier (`true`) would pass.
func TestIntegrationProbeSessionLost(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	tests := []struct {
		name     string
		commands []string
		lost     int
	}{
		{name: "set-e", commands: []string{"export FOO=bar; cd /tmp", "set -e", "false", "echo $FOO; pwd"}, lost: 2},
		{name: "exit-3", commands: []string{"cd /tmp", "exit 3", "pwd"}, lost: 1},
		{name: "kill-pgrp", commands: []string{"cd /tmp", "kill -9 0", "pwd"}, lost: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk, tr := lostTrajectory(t, "probe-lost-"+tc.name, tc.commands)
			sel, err := probe.ParseCheckpoints(fmt.Sprintf("0-%d", tc.lost))
			require.NoError(t, err)
			p := newProber(t, rt, policy.Expert{}, nil, probe.WithRollouts(1), probe.WithCheckpoints(sel))
			res, err := p.Run(context.Background(), tk, tr)
			require.NoError(t, err)
			require.Len(t, res.Points, tc.lost+1)
			for _, pt := range res.Points {
				assert.Equal(t, 1, pt.N, "k=%d: %s", pt.K, pt.LastError)
				assert.Zero(t, pt.Errors, "k=%d: the policy's doing, not infrastructure: %s", pt.K, pt.LastError)
				assert.Equal(t, 0.0, pt.PHat, "k=%d", pt.K)
			}
		})
	}
}

// lostTrajectory writes a bash session task whose trajectory runs commands
// and loads both.
func lostTrajectory(t *testing.T, id string, commands []string) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte("id: "+id+
		"\nimage: rbx/debian:bookworm\nworkdir: /root\nshell: session\nverify: {command: \"true\"}\n"), 0o644))
	steps := make([]map[string]string, len(commands))
	for i, c := range commands {
		steps[i] = map[string]string{"action": "shell", "command": c}
	}
	b, err := json.Marshal(map[string]any{"id": id, "task": "task.yaml", "steps": steps})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trajectory.json"), b, 0o644))
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return tk, trs[0]
}
