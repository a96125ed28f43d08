package examples_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// The task and trajectory parsers are written elsewhere; these strict
// decoders follow the types' json tags, which is what the formats are.

// loadTask reads NAME/task.yaml, rejecting unknown keys.
func loadTask(t *testing.T, name string) *task.Task {
	t.Helper()
	path := filepath.Join(name, "task.yaml")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	js, err := yaml.YAMLToJSON(raw)
	require.NoError(t, err, "%s: YAML", path)
	var tk task.Task
	strictJSON(t, path, js, &tk)
	abs, err := filepath.Abs(name)
	require.NoError(t, err)
	tk.Dir, tk.Path = abs, filepath.Join(abs, "task.yaml")
	return &tk
}

// loadTrajectory reads NAME/trajectory.json, rejecting unknown keys.
func loadTrajectory(t *testing.T, name string) *trajectory.Trajectory {
	t.Helper()
	path := filepath.Join(name, "trajectory.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var tr trajectory.Trajectory
	strictJSON(t, path, raw, &tr)
	tr.Path = path
	return &tr
}

func strictJSON(t *testing.T, path string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "%s: decode", path)
}
