package verifier_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/verifier"
)

// fake answers commands from a table and records files and exec modes.
type fake struct {
	codes map[string]int
	files map[string]string
	modes []sandbox.Mode
}

func (f *fake) Exec(_ context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	f.modes = append(f.modes, req.Mode)
	return sandbox.ExecResult{ExitCode: f.codes[req.Command], Output: []byte("ran " + req.Command)}, nil
}

func (f *fake) WriteFiles(_ context.Context, files []sandbox.File) error {
	for _, fl := range files {
		f.files[fl.Path] = string(fl.Data)
	}
	return nil
}

func (f *fake) ReadFile(context.Context, string) ([]byte, error) { return nil, sandbox.ErrNotFound }

func TestRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "t.sh"), []byte("exit 0"), 0o755))
	tk := &task.Task{ID: "t", Dir: dir,
		Verify: task.Verify{Command: "sh .v/t.sh", Files: map[string]string{"tests/": ".v/"}},
		Rubric: []task.RubricItem{{ID: "a", Command: "ok", Weight: 3}, {ID: "b", Command: "bad", Weight: 1}, {ID: "c", Command: "ok2"}},
	}
	tests := []struct {
		name   string
		code   int
		passed bool
	}{{"pass", 0, true}, {"fail", 1, false}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{codes: map[string]int{"sh .v/t.sh": tc.code, "bad": 1}, files: map[string]string{}}
			res, err := verifier.Run(context.Background(), f, tk)
			require.NoError(t, err)
			assert.Equal(t, tc.passed, res.Passed)
			assert.Equal(t, tc.code, res.ExitCode)
			assert.Equal(t, "exit 0", f.files[".v/t.sh"], "verifier files copied in at verify time")
			assert.InDelta(t, 4.0/5.0, res.Score, 1e-9, "weights 3 and 1 (default) of 5 passed")
			require.Len(t, res.Rubric, 3)
			assert.False(t, res.Rubric[1].Passed)
			for _, m := range f.modes {
				assert.Equal(t, sandbox.ModeExec, m, "verifier runs in a fresh shell")
			}
		})
	}
}
