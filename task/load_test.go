package task_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

func TestLoadComplete(t *testing.T) {
	tk, err := task.Load(filepath.Join("testdata", "deploy-otp", "task.yaml"))
	require.NoError(t, err)

	assert.Equal(t, "deploy-otp", tk.ID)
	assert.Equal(t, "rbx/debian:bookworm", tk.Image)
	assert.Equal(t, task.ByteSize(1<<30), tk.Limits.Memory)
	assert.Equal(t, task.ByteSize(64<<10), tk.Limits.Output)
	assert.Equal(t, 120*time.Second, tk.Limits.StepTimeout.D())
	assert.Equal(t, map[string]string{"tests/": "/tests/"}, tk.Verify.Files)
	require.Len(t, tk.Rubric, 2)
	assert.Equal(t, 2.5, tk.Rubric[1].Weight)
	assert.True(t, filepath.IsAbs(tk.Dir), "Dir is absolute: %s", tk.Dir)
	assert.Equal(t, filepath.Join("testdata", "deploy-otp", "task.yaml"), tk.Path)
	assert.Equal(t, 30*time.Minute, tk.EpisodeTimeout())
	assert.Equal(t, 300*time.Second, tk.VerifyTimeout())

	spec := provision.Spec(tk)
	assert.Equal(t, sandbox.Limits{CPUs: 1, MemoryBytes: 1 << 30, Pids: 512,
		DiskBytes: 2 << 30, FileSizeBytes: 512 << 20, NoFile: 1024}, spec.Limits)
	assert.Equal(t, "1000:1000", spec.User)
	assert.False(t, spec.ReadOnlyRoot)
	assert.Equal(t, []string{"DAC_OVERRIDE"}, spec.CapAdd)
	assert.Equal(t, map[string]string{sandbox.LabelTask: "deploy-otp"}, spec.Labels)
	assert.Equal(t, 64<<10, spec.OutputCap)
	assert.Equal(t, sandbox.ModeSession, spec.Mode)
	assert.NoError(t, spec.Validate())
}

func TestSandboxSpecDefaults(t *testing.T) {
	tk, err := task.Parse("min.json", []byte(`{"id": "min", "image": "busybox", "verify": {"command": "true"}}`))
	require.NoError(t, err)

	spec := provision.Spec(tk)
	assert.Equal(t, sandbox.DefaultWorkdir, spec.Workdir)
	assert.Equal(t, sandbox.ModeSession, spec.Mode)
	assert.Equal(t, sandbox.NetworkNone, spec.Network)
	assert.Equal(t, sandbox.DefaultStepTimeout, spec.StepTimeout)
	assert.Equal(t, sandbox.Limits{CPUs: sandbox.DefaultCPUs, MemoryBytes: sandbox.DefaultMemory, Pids: sandbox.DefaultPids,
		DiskBytes: sandbox.DefaultDisk, FileSizeBytes: sandbox.DefaultFileSize, NoFile: sandbox.DefaultNoFile}, spec.Limits)
	assert.Empty(t, spec.User)
	assert.False(t, spec.ReadOnlyRoot)
	assert.Empty(t, spec.CapAdd)
	assert.Equal(t, task.DefaultEpisodeTimeout, tk.EpisodeTimeout())
	assert.Equal(t, task.DefaultVerifyTimeout, tk.VerifyTimeout())
	assert.Empty(t, tk.Workdir, "defaults are not written into the task")
}

func TestParseSyntaxes(t *testing.T) {
	tests := []struct {
		name, doc string
	}{
		{"t.json", `{"id": "a", "build": {"context": "."}, "verify": {"command": "true"}, "shell": "exec", "network": "bridge"}`},
		{"t.yaml", "id: a\nimage: x\nverify:\n  command: |\n    set -e\n    true\n"},
		{"anchor.yml", "id: a\nimage: x\nenv: &e {A: '1'}\nverify: {command: 'true', timeout: 10}\nrubric:\n  - {id: r, command: 'true'}\n"},
		{"merge.yaml", "id: a\nimage: x\nlimits:\n  <<: {cpus: 2, pids: 64}\n  pids: 128\nverify: {command: 'true'}\n"},
		{"noext", `{"id": "a", "image": "x", "verify": {"command": "true"}}`},
		{"noext", "id: a\nimage: x\nverify: {command: 'true'}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk, err := task.Parse(tc.name, []byte(tc.doc))
			require.NoError(t, err)
			assert.Equal(t, "a", tk.ID)
		})
	}
}

func TestParseYAMLMerge(t *testing.T) {
	tk, err := task.Parse("m.yaml", []byte("id: a\nimage: x\nlimits:\n  <<: {cpus: 2, pids: 64}\n  pids: 128\nverify: {command: 'true', timeout: 10}\n"))
	require.NoError(t, err)
	assert.Equal(t, 2.0, tk.Limits.CPUs)
	assert.Equal(t, int64(128), tk.Limits.Pids, "the mapping's own key wins over the merged one")
	assert.Equal(t, 10*time.Second, tk.VerifyTimeout())
}

func TestLoadWrongExtension(t *testing.T) {
	_, err := task.Load("task.toml")
	var pe *task.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), ".yaml, .yml or .json")
}

func TestLoadMissingFile(t *testing.T) {
	_, err := task.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist), "got %v", err)
}
