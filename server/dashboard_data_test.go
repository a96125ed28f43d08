package server_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestDashboardData checks what the dashboard reads beyond the basic
// listing: θ, θ_high and W with each curriculum state, ?history=N, and
// the verifier's output and rubric kept in an evaluated episode's record.
func TestDashboardData(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithJournal(filepath.Join(t.TempDir(), "journal.db")))
	for range 3 {
		ep := h.resetFed(e.Task.ID, 11)
		h.step(ep.ID, refCall(t, e.Ref, 11), false)
		require.True(t, h.evaluate(ep.ID).Success)
	}
	ep := h.resetFed(e.Task.ID, 11)
	h.step(ep.ID, wrong, false)
	require.False(t, h.evaluate(ep.ID).Success)

	var cs struct {
		Tasks []struct {
			Theta     float64 `json:"theta"`
			ThetaHigh float64 `json:"theta_high"`
			Window    int     `json:"window"`
			History   []struct {
				Purpose string `json:"purpose"`
				Success bool   `json:"success"`
			} `json:"history"`
		} `json:"tasks"`
	}
	code, raw := h.call("GET", "/v1/curriculum?task="+e.Task.ID+"&history=2", nil, &cs)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, cs.Tasks, 1)
	assert.Equal(t, 0.5, cs.Tasks[0].Theta)
	assert.Equal(t, 0.625, cs.Tasks[0].ThetaHigh)
	assert.Equal(t, 8, cs.Tasks[0].Window)
	require.Len(t, cs.Tasks[0].History, 2, "history=2: the latest two")
	assert.Equal(t, "explicit", cs.Tasks[0].History[1].Purpose)
	assert.False(t, cs.Tasks[0].History[1].Success)

	for _, bad := range []string{"-1", "257", "x"} {
		code, raw := h.call("GET", "/v1/curriculum?history="+bad, nil, nil)
		assert.Equal(t, http.StatusBadRequest, code, bad)
		assert.Equal(t, "bad_request", errorCode(t, raw), bad)
	}

	var rec struct {
		Verifier *struct {
			Passed bool   `json:"passed"`
			Output string `json:"output"`
			Rubric []struct {
				ID     string `json:"id"`
				Passed bool   `json:"passed"`
			} `json:"rubric"`
		} `json:"verifier"`
	}
	code, raw = h.call("GET", "/v1/episodes/"+ep.ID, nil, &rec)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.NotNil(t, rec.Verifier, "%s", raw)
	assert.False(t, rec.Verifier.Passed)
	require.Len(t, rec.Verifier.Rubric, 2)
	assert.Equal(t, "script-written", rec.Verifier.Rubric[0].ID)

	var list struct {
		Episodes []server.EpisodeSummary `json:"episodes"`
	}
	code, raw = h.call("GET", "/v1/episodes", nil, &list)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.NotContains(t, string(raw), `"verifier"`, "the listing stays small: no verifier output")
	require.Len(t, list.Episodes, 4)
	for _, ep := range list.Episodes {
		assert.Equal(t, 1, ep.Steps, "the journal's listing counts the actions it leaves out")
	}
}
