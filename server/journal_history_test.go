package server

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadHistoryKeepsEveryTask: with more tasks than a global limit would
// cover, a restart restores each task's latest outcomes (at most
// historyMax), oldest first.
func TestLoadHistoryKeepsEveryTask(t *testing.T) {
	ctx := context.Background()
	j, _, err := openJournal(ctx, filepath.Join(t.TempDir(), "state.db"), false)
	t.Cleanup(func() { _ = j.close() })
	require.NoError(t, err)
	const tasks, each = 300, 20 // 6,000 outcomes
	at := time.UnixMilli(1_700_000_000_000)
	for i := range tasks * each {
		at = at.Add(time.Millisecond)
		rec := record{ID: fmt.Sprintf("ep_%020x", i), Task: fmt.Sprintf("t%03d", i%tasks), K: i / tasks, State: StateEvaluated,
			Created: at, Updated: at, Outcome: &Evaluation{Success: i%2 == 0}}
		require.NoError(t, j.put(ctx, rec))
	}
	h := newHistory(historyMax)
	require.NoError(t, j.loadHistory(ctx, h))
	for _, task := range []string{"t000", "t150", "t299"} {
		evs := h.last(task, historyMax)
		require.Len(t, evs, each, task)
		assert.Equal(t, 0, evs[0].K, task)
		assert.Equal(t, each-1, evs[each-1].K, task)
	}
}
