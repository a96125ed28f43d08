package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestDisconnectedEvaluateIsNotObserved: a client that goes away while the
// verifier runs leaves no outcome in the curriculum; the episode is failed,
// not evaluated.
func TestDisconnectedEvaluateIsNotObserved(t *testing.T) {
	e := runShPath(t)
	tk := *e.Task
	tk.Verify.Command = "sleep 3; true"
	e.Task = &tk
	h := newHarness(t, nil, []server.Entry{e})
	ep := h.resetFed(e.Task.ID, 0)
	for i := range e.Ref.Len() {
		h.step(ep.ID, refCall(t, e.Ref, i), false)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "POST", h.url+"/v1/episodes/"+ep.ID+"/evaluate", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err, "the client gave up before the verifier finished")

	var st struct {
		Tasks []server.TaskState `json:"tasks"`
	}
	require.Eventually(t, func() bool {
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, nil)
		return code == http.StatusConflict && errorCode(t, raw) == server.CodeEpisodeFinished
	}, 10*time.Second, 100*time.Millisecond, "the episode ends when its evaluation is cut short")
	code, _ := h.call("GET", "/v1/curriculum?task="+e.Task.ID, nil, &st)
	require.Equal(t, http.StatusOK, code)
	require.Len(t, st.Tasks, 1)
	assert.Empty(t, st.Tasks[0].History, "a disconnected episode is not an outcome")
}
