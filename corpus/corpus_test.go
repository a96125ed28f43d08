package corpus_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/trajectory"
)

var example = filepath.Join("..", "examples", "run-sh-path")

func TestLocate(t *testing.T) {
	for _, arg := range []string{example, filepath.Join(example, "task.yaml")} {
		in, err := corpus.Locate(arg, "")
		require.NoError(t, err, arg)
		assert.Equal(t, filepath.Join(example, "trajectory.json"), in.TrajectoryPath)
		assert.Equal(t, "run-sh-path-ref", in.ID)
	}
	in, err := corpus.Locate(filepath.Join(example, "trajectory.json"), "")
	require.NoError(t, err)
	assert.Empty(t, in.TaskPath)
	_, err = corpus.Locate(example, "nope")
	assert.ErrorIs(t, err, corpus.ErrInput)
}

func TestLoad(t *testing.T) {
	p, err := corpus.Load(filepath.Join(example, "trajectory.json"), "", "")
	require.NoError(t, err)
	assert.Equal(t, "run-sh-path-ref", p.Trajectory.ID)
	assert.Equal(t, "run-sh-path", p.Task.ID)
}

func TestPick(t *testing.T) {
	trajs := []*trajectory.Trajectory{{ID: "a"}, {ID: "b"}}
	tests := []struct {
		name string
		in   []*trajectory.Trajectory
		id   string
		want string
	}{
		{"only one", trajs[:1], "", "a"},
		{"by id", trajs, "b", "b"},
		{"several need an id", trajs, "", ""},
		{"unknown id", trajs, "zz", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := corpus.Pick("f.jsonl", tc.in, tc.id)
			if tc.want == "" {
				assert.ErrorIs(t, err, corpus.ErrInput)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.ID)
		})
	}
}

func TestTasksLoadOnce(t *testing.T) {
	c := corpus.NewTasks()
	path := filepath.Join(example, "task.yaml")
	a, data, err := c.Load(path)
	require.NoError(t, err)
	assert.NotEmpty(t, data)
	b, _, err := c.Load("./" + path)
	require.NoError(t, err)
	assert.Same(t, a, b, "one load per file")
	_, _, err = c.Load(filepath.Join(example, "missing.yaml"))
	assert.Error(t, err)
}
