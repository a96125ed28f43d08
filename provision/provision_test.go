package provision_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// batch records the files of each WriteFiles call.
type batch struct {
	files map[string]fs.FileMode
	calls int
}

func (b *batch) WriteFiles(_ context.Context, files []sandbox.File) error {
	b.calls++
	for _, f := range files {
		b.files[f.Path] = f.Mode
	}
	return nil
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi\n"), 0o644))
	tk := &task.Task{ID: "t", Dir: dir, Files: map[string]string{"src/": "app/", "notes.txt": "/etc/notes.txt"}}
	want := map[string]fs.FileMode{"app/run.sh": 0o755, "/etc/notes.txt": 0o644}

	b := &batch{files: map[string]fs.FileMode{}}
	require.NoError(t, provision.Prepare(context.Background(), b, tk))
	assert.Equal(t, want, b.files)
	assert.Equal(t, 1, b.calls, "one batch")

	tk.Files = map[string]string{"absent": "x"}
	assert.Error(t, provision.Prepare(context.Background(), b, tk))
}

func TestSpecDefaults(t *testing.T) {
	spec := provision.Spec(&task.Task{ID: "min", Image: "busybox"})
	assert.Equal(t, sandbox.DefaultWorkdir, spec.Workdir)
	assert.Equal(t, sandbox.ModeSession, spec.Mode)
	assert.Equal(t, map[string]string{sandbox.LabelTask: "min"}, spec.Labels)
	assert.Equal(t, sandbox.DefaultStepTimeout, spec.StepTimeout)
}
