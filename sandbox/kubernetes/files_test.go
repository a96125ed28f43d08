package kubernetes_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationFilesRepeated: many file round trips in a row come back
// byte for byte. The kubelet's exec stream sometimes starts a process with
// its stdin already at its end; before fileExec's gate about 1 write in 10
// came out empty here, so 40 writes failed this test almost surely.
func TestIntegrationFilesRepeated(t *testing.T) {
	rt := k8stest.Runtime(t)
	ctx := context.Background()
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec,
		Labels: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}})
	t.Cleanup(func() {
		if sb != nil {
			assert.NoError(t, sb.Remove(context.Background()))
		}
	})
	require.NoError(t, err)
	for i := range 40 {
		data := bytes.Repeat([]byte(fmt.Sprintf("line %d\n", i)), 100+i*10)
		if i%2 == 0 {
			require.NoError(t, sb.WriteFile(ctx, "f.txt", data, 0))
		} else {
			require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "f.txt", Data: data}}))
		}
		got, err := sb.ReadFile(ctx, "f.txt")
		require.NoError(t, err)
		require.Equal(t, len(data), len(got), "round trip %d", i)
		require.Equal(t, data, got, "round trip %d", i)
	}
}
