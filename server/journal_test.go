package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJournalMarksOpenEpisodesLost: what a dead process left open is
// reported as lost by the next one; finished records are kept as they were.
func TestJournalMarksOpenEpisodesLost(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	j, lost, err := openJournal(ctx, path)
	require.NoError(t, err)
	assert.Zero(t, lost)
	now := time.Now()
	open := record{ID: "ep_00000000000000000001", Task: "a", K: 3, State: StateOpen, Created: now, Updated: now}
	done := record{ID: "ep_00000000000000000002", Task: "a", K: 2, State: StateEvaluated, Created: now, Updated: now,
		Outcome: &Evaluation{Success: true, Reward: 1}}
	require.NoError(t, j.put(ctx, open))
	require.NoError(t, j.put(ctx, done))
	// No close: the process "died". The next one opens the same file.
	j2, lost, err := openJournal(ctx, path)
	t.Cleanup(func() { _ = j2.close(); _ = j.close() })
	require.NoError(t, err)
	assert.Equal(t, 1, lost)
	recs, err := j2.list(ctx, StateLost, 10)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, open.ID, recs[0].ID)
	got, ok, err := j2.get(ctx, done.ID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, StateEvaluated, got.State)
	assert.True(t, got.Outcome.Success)
	h := newHistory(8)
	require.NoError(t, j2.loadHistory(ctx, h))
	assert.Len(t, h.last("a", 8), 1)
}
