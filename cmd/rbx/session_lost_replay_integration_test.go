package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
)

// lostCase is a trajectory whose step Lost ends the session shell.
type lostCase struct {
	name  string
	steps []string // shell commands; recorded: exit 0 (1 for false), no output
	lost  int
}

// lostCases are the three ways a step ends the shell that issue 12 names.
var lostCases = []lostCase{
	{name: "set-e", steps: []string{"export FOO=bar; cd /tmp", "set -e", "false", "echo $FOO; pwd"}, lost: 2},
	{name: "exit-3", steps: []string{"cd /tmp", "exit 3", "echo after"}, lost: 1},
	{name: "kill-pgrp", steps: []string{"cd /tmp", "kill -9 0", "echo after"}, lost: 1},
}

// writeLostTrajectory writes a bash session task and tc's trajectory into
// dir and returns the trajectory's path. The recorded exit codes are those a
// shell that survived would give, so only the lost session can diverge.
func writeLostTrajectory(t *testing.T, dir string, tc lostCase) string {
	t.Helper()
	id := fmt.Sprintf("lost-%s-%d", tc.name, time.Now().UnixNano())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte("id: "+id+
		"\nimage: rbx/debian:bookworm\nworkdir: /root\nshell: session\nverify: {command: \"true\"}\n"), 0o644))
	type obs struct {
		ExitCode int `json:"exit_code"`
	}
	type step struct {
		Action      string `json:"action"`
		Command     string `json:"command"`
		Observation obs    `json:"observation"`
	}
	steps := make([]step, len(tc.steps))
	for i, c := range tc.steps {
		code := 0
		if c == "false" {
			code = 1
		}
		steps[i] = step{Action: "shell", Command: c, Observation: obs{ExitCode: code}}
	}
	b, err := json.Marshal(map[string]any{"id": tc.name, "task": "task.yaml", "steps": steps})
	require.NoError(t, err)
	path := filepath.Join(dir, tc.name+".json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// TestIntegrationReplaySessionLost: a step that ends the session shell
// (errexit, exit, killing the process group) is a divergence at that step
// with reason session_lost, in the JSON and in the table — never a quiet
// restart.
func TestIntegrationReplaySessionLost(t *testing.T) {
	dockerOrSkip(t, "rbx/debian:bookworm")
	for _, tc := range lostCases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeLostTrajectory(t, t.TempDir(), tc)
			code, stdout, stderr := rbx(t, "replay", path, "--runtime", "docker", "--output", "json")
			require.Equal(t, exitDiverged, code, "stdout: %s\nstderr: %s", stdout, stderr)
			var res replayResult
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.NotNil(t, res.Report)
			require.NotNil(t, res.Report.Divergence)
			assert.Equal(t, tc.lost, res.Report.Divergence.Index)
			assert.Equal(t, reason.SessionLost, res.Report.Divergence.Reason)
			require.Len(t, res.Report.Steps, tc.lost+1, "no step runs after the lost one")
			assert.True(t, res.Report.Steps[tc.lost].SessionLost)

			code, stdout, stderr = rbx(t, "replay", path, "--runtime", "docker")
			require.Equal(t, exitDiverged, code, stderr)
			assert.Contains(t, stdout, fmt.Sprintf("DIVERGED at step %d", tc.lost))
			assert.True(t, strings.Contains(stdout, string(reason.SessionLost)), stdout)
		})
	}
}
