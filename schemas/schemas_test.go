package schemas_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/schemas"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/task/source"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

// props returns the property names declared at the given path of $defs
// keys ("" is the root).
func props(t *testing.T, schema map[string]any, def string) []string {
	t.Helper()
	node := schema
	if def != "" {
		defs, _ := schema["$defs"].(map[string]any)
		node, _ = defs[def].(map[string]any)
		require.NotNil(t, node, "schema has $defs/%s", def)
	}
	p, _ := node["properties"].(map[string]any)
	var names []string
	for k := range p {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func goNames(v any) []string {
	names := source.FieldNames(reflect.TypeOf(v))
	slices.Sort(names)
	return names
}

func TestSchemasMatchGoTypes(t *testing.T) {
	ts := decode(t, schemas.Task)
	tr := decode(t, schemas.Trajectory)
	for _, s := range []map[string]any{ts, tr} {
		assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	}
	tests := []struct {
		name   string
		schema map[string]any
		def    string
		value  any
	}{
		{"Task", ts, "", task.Task{}},
		{"Build", ts, "build", task.Build{}},
		{"Limits", ts, "limits", task.Limits{}},
		{"Verify", ts, "verify", task.Verify{}},
		{"RubricItem", ts, "rubricItem", task.RubricItem{}},
		{"Trajectory", tr, "", trajectory.Trajectory{}},
		{"Range", tr, "range", trajectory.Range{}},
		{"Observation", tr, "observation", trajectory.Observation{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, goNames(tc.value), props(t, tc.schema, tc.def))
		})
	}

	t.Run("Step", func(t *testing.T) {
		common := props(t, tr, "step")
		all := slices.Clone(common)
		for _, k := range trajectory.Kinds {
			want := k.Fields()
			slices.Sort(want)
			got := append(slices.Clone(common), props(t, tr, string(k))...)
			slices.Sort(got)
			assert.Equal(t, want, got, "fields of action %q", k)
			all = append(all, got...)
		}
		slices.Sort(all)
		assert.Equal(t, goNames(trajectory.Step{}), slices.Compact(all), "every Step field belongs to some action")
	})

	t.Run("actions", func(t *testing.T) {
		defs := tr["$defs"].(map[string]any)
		enum := defs["step"].(map[string]any)["properties"].(map[string]any)["action"].(map[string]any)["enum"]
		var kinds []any
		for _, k := range trajectory.Kinds {
			kinds = append(kinds, string(k))
		}
		assert.Equal(t, kinds, enum)
	})
}

// TestExamplesAreWellFormed checks every example document the tests use:
// JSON files are JSON, JSONL lines are JSON objects, YAML files are YAML.
func TestExamplesAreWellFormed(t *testing.T) {
	var files []string
	for _, root := range []string{"../task/testdata", "../trajectory/testdata"} {
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
				files = append(files, p)
			}
			return err
		}))
	}
	require.NotEmpty(t, files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		switch filepath.Ext(p) {
		case ".json":
			assert.True(t, json.Valid(data), "%s is valid JSON", p)
		case ".jsonl":
			for i, line := range strings.Split(string(data), "\n") {
				if strings.TrimSpace(line) != "" {
					assert.True(t, json.Valid([]byte(line)), "%s:%d is valid JSON", p, i+1)
				}
			}
		case ".yaml", ".yml":
			var v any
			assert.NoError(t, yaml.Unmarshal(data, &v), "%s is valid YAML", p)
		}
	}
}
