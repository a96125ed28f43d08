package containerd

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestWithOCIRuntime(t *testing.T) {
	for _, tc := range []struct{ name, want string }{{"runc", ""}, {Runsc, Runsc}} {
		c := config{ociRuntime: "x"}
		require.NoError(t, WithOCIRuntime(tc.name)(&c), tc.name)
		assert.Equal(t, tc.want, c.ociRuntime, tc.name)
	}
	for _, name := range []string{"", "kata", "/usr/bin/runsc"} {
		assert.ErrorIs(t, WithOCIRuntime(name)(&config{}), sandbox.ErrUnsupported, name)
	}
}

func TestRunscFeaturesAndLimits(t *testing.T) {
	r := &Runtime{oci: ociRuntime{name: Runsc}}
	f := r.Features()
	assert.False(t, f.PidsLimit || f.PrivateNetwork || f.ReadOnlyRoot || f.Recycle, "%+v", f)
	assert.True(t, f.MemoryLimit && f.User && f.FileSizeLimit, "%+v", f)
	assert.Equal(t, int64(sandbox.RunscPidsFloor), r.ociLimits(sandbox.Limits{Pids: 128}).Pids)
	assert.Equal(t, int64(4096), r.ociLimits(sandbox.Limits{Pids: 4096}).Pids)
	assert.Equal(t, int64(128), (&Runtime{}).ociLimits(sandbox.Limits{Pids: 128}).Pids, "runc keeps the task's limit")
	assert.Nil(t, (&Runtime{}).runtimeOptions())
	assert.NotNil(t, r.runtimeOptions())
}

func TestParentPID(t *testing.T) {
	ppid, err := parentPID(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, os.Getppid(), ppid)
	_, err = parentPID(-1)
	assert.Error(t, err)
}
