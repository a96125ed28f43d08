package replayer_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// dockerRuntime returns the docker runtime with the named rbx images built,
// or skips when no engine answers.
func dockerRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	return dockertest.Runtime(tb, imgs...)
}

// create makes a sandbox removed at test end.
func create(tb testing.TB, rt sandbox.Runtime, spec sandbox.Spec) sandbox.Sandbox {
	tb.Helper()
	sb, err := rt.Create(context.Background(), spec)
	tb.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(tb, err)
	return sb
}

// quantile returns the q-quantile of ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}
