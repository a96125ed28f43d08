package containerd_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
)

// TestIntegrationIsolation: what serve's start-up line and /healthz say
// for containerd: the runtime in force, runsc among those available when
// its wrapper is installed, containerd's default seccomp profile, the
// disk bound.
func TestIntegrationIsolation(t *testing.T) {
	cases := []struct {
		name string
		rt   func(testing.TB, ...string) *containerd.Runtime
		want string
	}{
		{"runc", containerdtest.Runtime, "runc"},
		{"runsc", containerdtest.RunscRuntime, containerd.Runsc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := tc.rt(t)
			var ir sandbox.IsolationReporter = rt
			iso, err := ir.Isolation(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, iso.OCIRuntime)
			assert.Contains(t, iso.Available, "runc")
			if tc.want == containerd.Runsc {
				assert.Contains(t, iso.Available, containerd.Runsc)
			}
			assert.NotEmpty(t, iso.Seccomp)
			assert.Contains(t, iso.DiskBound, string(sandbox.DiskBoundFileSize))
			assert.Contains(t, iso.String(), "runtime "+tc.want)
		})
	}
}
