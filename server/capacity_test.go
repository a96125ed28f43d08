package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
)

// TestCapacity429: with the budget held by open episodes, a reset waits
// its --capacity-wait in line, then gets 429 capacity with Retry-After;
// once an episode ends the next reset succeeds. /healthz and /metrics
// show the budget.
func TestCapacity429(t *testing.T) {
	rt, err := local.New()
	require.NoError(t, err)
	e := runShPath(t)
	url, rs := budgetServer(t, rt, []server.Entry{e}, 2, reset.WithCapacityWait(200*time.Millisecond))
	ctx := context.Background()
	var rr server.ResetResponse
	code, _, raw, err := post(ctx, url+"/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": 0, "group": 2}, &rr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, "%s", raw)

	start := time.Now()
	code, after, raw, err := post(ctx, url+"/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": 0}, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, code, "%s", raw)
	assert.Contains(t, string(raw), `"code":"capacity"`)
	assert.NotEmpty(t, after, "Retry-After")
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "it waited in line first")

	code, _, raw, err = post(ctx, url+"/v1/reset", map[string]any{"task": e.Task.ID, "group": 3}, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, code, "a group larger than the budget can never be served: %s", raw)
	assert.Contains(t, string(raw), "--max-sandboxes")

	resp, err := http.Get(url + "/healthz")
	require.NoError(t, err)
	defer resp.Body.Close()
	var hz struct {
		Capacity struct {
			Max, Live int
			TimedOut  int64 `json:"timed_out"`
		} `json:"capacity"`
	}
	require.NoError(t, decodeJSON(resp, &hz))
	assert.Equal(t, 2, hz.Capacity.Max)
	assert.Equal(t, 2, hz.Capacity.Live)
	assert.EqualValues(t, 1, hz.Capacity.TimedOut)

	for _, ep := range rr.Episodes {
		code, _, raw, err = post(ctx, url+"/v1/episodes/"+ep.ID+"/close", map[string]any{}, nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code, "%s", raw)
	}
	code, _, raw, err = post(ctx, url+"/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": 0}, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "room again: %s", raw)
	assert.LessOrEqual(t, rs.Budget().Stats().Peak, 2)

	m, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer m.Body.Close()
	body := readAll(t, m)
	assert.Contains(t, body, "rbx_sandboxes_budget 2")
	assert.Contains(t, body, `rbx_sandboxes_state{state="in_use"}`)
}

func decodeJSON(resp *http.Response, out any) error {
	return json.NewDecoder(resp.Body).Decode(out)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
