package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/store"
)

// TestJournalMarksOpenEpisodesLost: what a dead process left open is
// reported as lost by the next one; finished records are kept as they were.
func TestJournalMarksOpenEpisodesLost(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	j, lost, err := openJournal(ctx, path, false)
	require.NoError(t, err)
	assert.Zero(t, lost)
	now := time.Now()
	open := record{ID: "ep_00000000000000000001", Task: "a", K: 3, State: StateOpen, Created: now, Updated: now}
	done := record{ID: "ep_00000000000000000002", Task: "a", K: 2, State: StateEvaluated, Created: now, Updated: now,
		Outcome: &Evaluation{Success: true, Reward: 1}}
	require.NoError(t, j.put(ctx, open))
	require.NoError(t, j.put(ctx, done))
	// No close: the process "died". The next one opens the same file.
	j2, lost, err := openJournal(ctx, path, false)
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

// TestJournalSharesStateDB: the curriculum store and the journal write
// through one handle of one state database; closing the journal leaves the
// handle to its owner, and both survive a reopen.
func TestJournalSharesStateDB(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(ctx, path)
	t.Cleanup(func() {
		if st != nil {
			_ = st.Close()
		}
	})
	require.NoError(t, err)
	j, lost, err := newJournal(ctx, st.DB(), false)
	require.NoError(t, err)
	assert.Zero(t, lost)
	assert.Same(t, st.DB(), j.db)

	ti := curriculum.TaskInfo{ID: "a", T: 2, Valid: []bool{true, true}}
	require.NoError(t, st.RecordTask(ti))
	require.NoError(t, st.RecordOutcome(curriculum.Outcome{Task: "a", K: 1, Success: true}))
	now := time.Now()
	require.NoError(t, j.put(ctx, record{ID: "ep_00000000000000000001", Task: "a", K: 1, State: StateOpen, Created: now, Updated: now}))
	require.NoError(t, j.close())
	require.NoError(t, st.DB().PingContext(ctx), "closing the journal must not close the store's handle")
	require.NoError(t, st.Close())
	st = nil

	st2, err := store.Open(ctx, path)
	t.Cleanup(func() {
		if st2 != nil {
			_ = st2.Close()
		}
	})
	require.NoError(t, err)
	tasks, outs, err := st2.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, []curriculum.TaskInfo{ti}, tasks)
	assert.Len(t, outs, 1)
	j2, lost, err := newJournal(ctx, st2.DB(), false)
	require.NoError(t, err)
	assert.Equal(t, 1, lost)
	_, ok, err := j2.get(ctx, "ep_00000000000000000001")
	require.NoError(t, err)
	assert.True(t, ok)
}
