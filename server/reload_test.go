package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestAddTasks: a reloaded directory's new task is served and in the
// curriculum; a task as it was is left alone; an edited one is refused,
// named; a bad id is refused.
func TestAddTasks(t *testing.T) {
	base := runShPath(t)
	h := newHarness(t, nil, []server.Entry{base})

	again := runShPath(t) // loaded again from disk: the same
	edited := runShPath(t)
	edited.Ref.Steps[0].Command = "ls -la"
	other := runShPath(t)
	other.Task.ID = "run-sh-path-2"
	bad := runShPath(t)
	bad.Task.ID = "../x"

	res, err := h.srv.AddTasks(context.Background(), []server.Entry{again, other, bad})
	require.NoError(t, err)
	assert.Equal(t, []string{"run-sh-path-2"}, res.Added)
	assert.Equal(t, 1, res.Unchanged)
	require.Len(t, res.Refused, 1)
	assert.Contains(t, res.Refused[0].Error(), `task "../x"`)

	res, err = h.srv.AddTasks(context.Background(), []server.Entry{edited})
	require.NoError(t, err)
	assert.Empty(t, res.Added)
	require.Len(t, res.Refused, 1)
	assert.Contains(t, res.Refused[0].Error(), `task "run-sh-path": its task file or reference trajectory changed`)

	ep := h.resetWith(map[string]any{"task": "run-sh-path-2"})
	assert.Equal(t, "run-sh-path-2", ep.Task)
	code, raw := h.call("GET", "/v1/curriculum?task=run-sh-path-2", nil, nil)
	assert.Equal(t, http.StatusOK, code, "%s", raw)
	var health map[string]any
	code, _ = h.call("GET", "/healthz", nil, &health)
	require.Equal(t, http.StatusOK, code)
	assert.EqualValues(t, 2, health["tasks"])
}
