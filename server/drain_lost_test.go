package server_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestDrainCutsOpenEpisodes: with repairs off, an episode still open when
// the server drains was cut, not closed by its client: the next server on
// the same state reports it lost, as after a crash, and a step on it says
// so. (With repairs on, TestRestartResumesEpisodes.)
func TestDrainCutsOpenEpisodes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	h := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state), server.WithRepairs(0))
	open := h.reset("run-sh-path", 3)
	done := h.reset("run-sh-path", 3)
	code, raw := h.call("POST", "/v1/episodes/"+done.ID+"/close", nil, nil)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.NoError(t, h.srv.Close(t.Context()))

	h2 := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state), server.WithRepairs(0))
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

// TestRestartResumesEpisodes: an episode open when its server went away
// goes on in the next server on the same state, under its id: its next
// call rebuilds the sandbox by replay (the reference to k, then its own
// actions, checked), counts the recovery, and a retried step number gets
// the recorded answer without running the action again.
func TestRestartResumesEpisodes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	h := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state))
	open := h.reset("run-sh-path", 3)
	first := h.step(open.ID, shellCall("echo one >> mine; cat mine", ""), false)
	require.Equal(t, "one\n", first.Observation.Output)
	require.NoError(t, h.srv.Close(t.Context()))

	h2 := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state))
	assert.Zero(t, h2.srv.Lost())
	var sr server.StepResponse
	code, raw := h2.call("POST", "/v1/episodes/"+open.ID+"/step", map[string]any{"tool_call": shellCall("echo two >> mine; cat mine", ""), "step": first.Step + 1}, &sr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, "one\ntwo\n", sr.Observation.Output, "the rebuilt sandbox holds the episode's own action")
	assert.Equal(t, 1, sr.Info.Recovered)

	// The answer was lost: the client retries the same step number.
	var again server.StepResponse
	code, raw = h2.call("POST", "/v1/episodes/"+open.ID+"/step", map[string]any{"tool_call": shellCall("echo two >> mine; cat mine", ""), "step": first.Step + 1}, &again)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.True(t, again.Info.Repeated)
	assert.Equal(t, sr.Observation.Output, again.Observation.Output)
	code, raw = h2.call("POST", "/v1/episodes/"+open.ID+"/step", map[string]any{"tool_call": shellCall("cat mine", ""), "step": first.Step + 5}, nil)
	assert.Equal(t, http.StatusConflict, code, "%s", raw)
	assert.Equal(t, server.CodeStepConflict, errorCode(t, raw))
	last := h2.step(open.ID, shellCall("cat mine", ""), false)
	assert.Equal(t, "one\ntwo\n", last.Observation.Output, "the retry did not run the action again")

	// An evaluation answered just before a restart answers its retry.
	first1 := h2.evaluate(open.ID)
	require.NoError(t, h2.srv.Close(t.Context()))
	h3 := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithJournal(state))
	again1 := h3.evaluate(open.ID)
	assert.Equal(t, first1.Reward, again1.Reward)
	assert.Equal(t, first1.Success, again1.Success)
	assert.Equal(t, 1, again1.Recovered)
}
