package server_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestDrainCutsOpenEpisodes: an episode still open when the server drains
// was cut, not closed by its client: the next server on the same state
// reports it lost, as after a crash, and a step on it says so.
func TestDrainCutsOpenEpisodes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	h := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state))
	open := h.reset("run-sh-path", 3)
	done := h.reset("run-sh-path", 3)
	code, raw := h.call("POST", "/v1/episodes/"+done.ID+"/close", nil, nil)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.NoError(t, h.srv.Close(t.Context()))

	h2 := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state))
	assert.Equal(t, 1, h2.srv.Lost())
	var lost struct {
		Episodes []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"episodes"`
	}
	code, raw = h2.call("GET", "/v1/episodes?state=lost", nil, &lost)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, lost.Episodes, 1)
	assert.Equal(t, open.ID, lost.Episodes[0].ID)
	code, raw = h2.call("POST", "/v1/episodes/"+open.ID+"/step", map[string]any{"tool_call": map[string]any{"name": "shell", "arguments": map[string]any{"command": "true"}}}, nil)
	assert.Equal(t, http.StatusConflict, code)
	assert.Equal(t, server.CodeEpisodeFinished, errorCode(t, raw))
}
