package containerd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
)

var modes = []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec}

func newRuntime(tb testing.TB) *containerd.Runtime {
	tb.Helper()
	return containerdtest.Runtime(tb, testImage)
}

// newSandbox creates a sandbox from spec (the test image by default),
// labelled with the test's name and removed at the end of the test.
func newSandbox(tb testing.TB, rt *containerd.Runtime, spec sandbox.Spec) sandbox.Sandbox {
	tb.Helper()
	if spec.Image == "" {
		spec.Image = testImage
	}
	spec.Labels = map[string]string{"rbx.test": sandbox.LabelValue(tb.Name())}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := rt.Create(ctx, spec)
	tb.Cleanup(func() {
		if sb != nil {
			assert.NoError(tb, sb.Remove(context.Background()))
		}
	})
	require.NoError(tb, err)
	return sb
}
