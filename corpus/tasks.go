package corpus

import (
	"os"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/task"
)

// Tasks loads task files, each once: a corpus of thousands of trajectories
// names a handful of tasks. It is not safe for concurrent use.
type Tasks struct {
	byPath map[string]loadedTask
}

type loadedTask struct {
	task *task.Task
	data []byte
	err  error
}

// NewTasks returns an empty cache.
func NewTasks() *Tasks {
	return &Tasks{byPath: map[string]loadedTask{}}
}

// Load returns the task at path and the file's bytes (for content
// hashes). A failed load is remembered too: the error comes back for every
// trajectory naming that file.
func (c *Tasks) Load(path string) (*task.Task, []byte, error) {
	path = filepath.Clean(path)
	lt, ok := c.byPath[path]
	if !ok {
		lt = load(path)
		c.byPath[path] = lt
	}
	return lt.task, lt.data, lt.err
}

// load reads and parses one task file.
func load(path string) loadedTask {
	var lt loadedTask
	lt.data, lt.err = os.ReadFile(path)
	if lt.err == nil {
		lt.task, lt.err = task.Load(path)
	}
	return lt
}
