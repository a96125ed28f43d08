package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/server/client"
)

// fakeServe answers the three routes the client calls, checking the token.
func fakeServe(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /v1/reset", func(w http.ResponseWriter, r *http.Request) {
		var req api.ResetRequest
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		if req.Task == "missing" {
			reply(w, http.StatusNotFound, map[string]any{"error": map[string]string{"code": "unknown_task", "message": "no task missing"}})
			return
		}
		reply(w, http.StatusOK, api.ResetResponse{Task: req.Task, K: 2, Episodes: []api.EpisodeInfo{{ID: "ep-1"}}})
	})
	mux.HandleFunc("POST /v1/episodes/{id}/step", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, api.StepResponse{})
	})
	mux.HandleFunc("POST /v1/episodes/{id}/evaluate", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, api.EvaluateResponse{Episode: r.PathValue("id"), Success: true})
	})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			reply(w, http.StatusUnauthorized, map[string]any{"error": map[string]string{"code": api.CodeUnauthorized, "message": "token"}})
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs
}

func TestClientEpisode(t *testing.T) {
	hs := fakeServe(t)
	c, err := client.New(hs.URL, client.WithToken("secret"))
	require.NoError(t, err)
	ctx := context.Background()
	rr, err := c.Reset(ctx, api.ResetRequest{Task: "t"})
	require.NoError(t, err)
	assert.Equal(t, 2, rr.K)
	require.Len(t, rr.Episodes, 1)
	_, err = c.Step(ctx, rr.Episodes[0].ID, api.StepRequest{})
	require.NoError(t, err)
	ev, err := c.Evaluate(ctx, rr.Episodes[0].ID)
	require.NoError(t, err)
	assert.True(t, ev.Success)
	assert.Equal(t, "ep-1", ev.Episode)
}

func TestClientErrors(t *testing.T) {
	hs := fakeServe(t)
	tests := []struct {
		name   string
		opts   []client.Option
		task   string
		status int
		code   string
	}{
		{"api error", []client.Option{client.WithToken("secret")}, "missing", http.StatusNotFound, "unknown_task"},
		{"no token", nil, "t", http.StatusUnauthorized, api.CodeUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := client.New(hs.URL, tc.opts...)
			require.NoError(t, err)
			_, err = c.Reset(context.Background(), api.ResetRequest{Task: tc.task})
			var apiErr *api.APIError
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tc.status, apiErr.Status)
			assert.Equal(t, tc.code, apiErr.Code)
		})
	}
	_, err := client.New("not a url")
	assert.Error(t, err)
}
