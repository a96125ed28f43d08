package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// lostEntry writes a bash session task whose trajectory runs commands, and
// loads it as a served entry named id.
func lostEntry(t *testing.T, id string, commands []string) server.Entry {
	t.Helper()
	steps := make([]map[string]string, len(commands))
	for i, c := range commands {
		steps[i] = map[string]string{"action": "shell", "command": c}
	}
	return writeEntry(t, "id: "+id+"\nimage: rbx/debian:bookworm\nworkdir: /root\nshell: session\nverify: {command: \"true\"}\n", id, steps)
}

// writeEntry writes a task (taskYAML) and its reference trajectory id of
// steps in a new directory and loads them as a served entry.
func writeEntry(t *testing.T, taskYAML, id string, steps any) server.Entry {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte(taskYAML), 0o644))
	b, err := json.Marshal(map[string]any{"id": id, "task": "task.yaml", "steps": steps})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trajectory.json"), b, 0o644))
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return server.Entry{Task: tk, Ref: trs[0]}
}

// TestIntegrationServeSessionLost: the policy's action that ends the
// session shell (errexit, exit, killing the process group) answers
// terminated with observation session_lost, on Docker through the HTTP API.
func TestIntegrationServeSessionLost(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/debian:bookworm")
	tests := []struct {
		name   string
		prefix []string // replayed by reset
		action string   // the policy's action that ends the shell
	}{
		{name: "set-e", prefix: []string{"export FOO=bar; cd /tmp", "set -e"}, action: "false"},
		{name: "exit-3", prefix: []string{"cd /tmp"}, action: "exit 3"},
		{name: "kill-pgrp", prefix: []string{"cd /tmp"}, action: "kill -9 0"},
	}
	entries := make([]server.Entry, len(tests))
	for i, tc := range tests {
		entries[i] = lostEntry(t, "serve-lost-"+tc.name, append(tc.prefix, "echo $FOO; pwd"))
	}
	h := newHarness(t, rt, entries)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep := h.reset("serve-lost-"+tc.name, len(tc.prefix))
			before := h.step(ep.ID, map[string]any{"name": "shell", "arguments": map[string]any{"command": "pwd"}}, false)
			assert.False(t, before.Terminated)
			assert.False(t, before.Observation.SessionLost)
			assert.Equal(t, "/tmp\n", before.Observation.Output, "reset replayed the prefix in the session")

			sr := h.step(ep.ID, map[string]any{"name": "shell", "arguments": map[string]any{"command": tc.action}}, false)
			assert.True(t, sr.Terminated, "%+v", sr)
			assert.True(t, sr.Observation.SessionLost, "%+v", sr.Observation)
		})
	}
}
