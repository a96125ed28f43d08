package replayer_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// dockerRuntime returns the docker runtime with the named rbx images built,
// or skips when no engine answers.
func dockerRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := docker.Available(ctx); err != nil {
		tb.Skipf("no Docker engine answers: %v", err)
	}
	rt, err := docker.New()
	tb.Cleanup(func() { _ = rt.Close() })
	require.NoError(tb, err)
	b, err := images.NewBuilder(rt.Client())
	require.NoError(tb, err)
	for _, name := range imgs {
		_, err := b.Ensure(ctx, name)
		require.NoError(tb, err, "build %s", name)
	}
	return rt
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
