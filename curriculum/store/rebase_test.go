package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
)

func TestReopenAfterRebase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	opts := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow), curriculum.WithWindow(2)}
	e, s, err := OpenEngine(ctx, path, nil, opts...)
	require.NoError(t, err)
	require.NoError(t, e.Register(curriculum.TaskInfo{ID: "a", T: 6}))
	observe := func(e *curriculum.Engine, n int) {
		for range n {
			k, _, err := e.Next("a")
			require.NoError(t, err)
			require.NoError(t, e.Observe("a", k, true))
		}
	}
	observe(e, 4) // 5 and 4 mastered: at 3
	require.NoError(t, e.Rebase(curriculum.Rebase{Task: "a", K: 0, Version: 2, To: curriculum.TaskInfo{T: 2}}))
	observe(e, 1) // at 1 of the new reference
	want, err := e.Status("a")
	require.NoError(t, err)
	require.Equal(t, 2, want.Version)
	require.NoError(t, s.Close())

	e2, s2, err := OpenEngine(ctx, path, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s2.Close() })
	got, err := e2.Status("a")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	rbs, err := s2.Rebases(ctx)
	require.NoError(t, err)
	require.Len(t, rbs, 1)
	assert.Equal(t, 4, rbs[0].After, "stored after the four outcomes before it")
	assert.Equal(t, curriculum.TaskInfo{ID: "a", T: 2, Valid: []bool{true, true}}, rbs[0].To)
}
