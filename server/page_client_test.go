package server_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
	"github.com/rbx-sandbox/rbx/server/client"
)

// TestClientPagesTasks: the Go client's Tasks reads every page, EachTask
// follows a filter across pages, TaskPage is one page.
func TestClientPagesTasks(t *testing.T) {
	const n = 1203
	h := manyHarness(t, n)
	c, err := client.New(h.url)
	require.NoError(t, err)
	ctx := context.Background()
	all, err := c.Tasks(ctx)
	require.NoError(t, err)
	require.Len(t, all, n)
	assert.Equal(t, corpustest.ID(n-1), all[n-1].ID)

	var got []string
	for ts, err := range c.EachTask(ctx, client.ListOptions{Limit: 7, Q: "gen-010"}) {
		require.NoError(t, err)
		got = append(got, ts.ID)
	}
	assert.Len(t, got, 100)

	p, err := c.TaskPage(ctx, client.ListOptions{Limit: 5, Phase: "search"})
	require.NoError(t, err)
	assert.Len(t, p.Tasks, 5)
	assert.Equal(t, n, p.Total)
	assert.NotEmpty(t, p.NextCursor)

	_, err = c.TaskPage(ctx, client.ListOptions{Phase: "mastered"})
	require.Error(t, err)
	for _, err := range c.EachTask(ctx, client.ListOptions{Phase: "mastered"}) {
		assert.ErrorContains(t, err, "phase")
	}
}
