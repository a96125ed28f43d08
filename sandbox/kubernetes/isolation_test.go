package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationIsolation: what serve says for Kubernetes: the
// RuntimeClass in force (or the node's default handler), the cluster's
// RuntimeClasses, the pods' RuntimeDefault seccomp profile, the disk bound.
func TestIntegrationIsolation(t *testing.T) {
	cases := []struct {
		name string
		rt   func(testing.TB, ...kubernetes.Option) *kubernetes.Runtime
		want string
	}{
		{"default handler", k8stest.Runtime, "the node's default handler"},
		{"runsc", k8stest.RunscRuntime, "runsc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := tc.rt(t)
			var ir sandbox.IsolationReporter = rt
			iso, err := ir.Isolation(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, iso.OCIRuntime)
			if tc.want == "runsc" {
				assert.Contains(t, iso.Available, "runsc", "the cluster's RuntimeClasses")
			}
			assert.Equal(t, "RuntimeDefault", iso.Seccomp)
			assert.NotEmpty(t, iso.DiskBound)
		})
	}
}
