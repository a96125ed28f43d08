package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// TestOpenEnvRoutes: the routes `openenv validate` checks, JSON-RPC on
// /mcp, and the token as a secret path prefix (OpenEnv's clients send no
// header).
func TestOpenEnvRoutes(t *testing.T) {
	e := runShPath(t)
	cases := []struct {
		name, token, prefix string
	}{
		{"no token: at the root", "", ""},
		{"a token: under /TOKEN", "s3cret-token", "/s3cret-token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := []server.Option{server.WithOpenEnv()}
			if tc.token != "" {
				opts = append(opts, server.WithToken(tc.token))
			}
			h := newHarness(t, nil, []server.Entry{e}, opts...)
			get := func(path string) (int, map[string]any) {
				t.Helper()
				var out map[string]any
				code, raw := h.call("GET", path, nil, &out)
				if code == http.StatusOK {
					require.NotNil(t, out, "%s", raw)
				}
				return code, out
			}
			// What `openenv validate --url` checks first: info.version,
			// and /reset, /step and /state all in the paths (or none).
			code, doc := get(tc.prefix + "/openapi.json")
			require.Equal(t, http.StatusOK, code)
			assert.IsType(t, "", doc["info"].(map[string]any)["version"])
			paths := doc["paths"].(map[string]any)
			for _, p := range []string{"/reset", "/step", "/state"} {
				assert.Contains(t, paths, p)
			}
			code, health := get(tc.prefix + "/health")
			require.Equal(t, http.StatusOK, code)
			assert.Equal(t, "healthy", health["status"])
			code, schema := get(tc.prefix + "/schema")
			require.Equal(t, http.StatusOK, code)
			assert.Contains(t, schema, "action")
			assert.Contains(t, schema, "observation")
			assert.Contains(t, schema, "state")
			code, meta := get(tc.prefix + "/metadata")
			require.Equal(t, http.StatusOK, code)
			assert.Equal(t, "rbx", meta["name"])
			assert.IsType(t, "", meta["description"])
			code, state := get(tc.prefix + "/state")
			require.Equal(t, http.StatusOK, code)
			assert.Nil(t, state["episode_id"])
			if tc.token != "" {
				code, _ = get("/health")
				assert.Equal(t, http.StatusUnauthorized, code, "not at the root")
				code, _ = get("/wrong/health")
				assert.Equal(t, http.StatusUnauthorized, code, "not under another prefix")
			}

			var rpc map[string]any
			code, raw := h.call("POST", tc.prefix+"/mcp", map[string]any{}, &rpc)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.Equal(t, "2.0", rpc["jsonrpc"])
			assert.EqualValues(t, -32600, rpc["error"].(map[string]any)["code"])
			code, raw = h.call("POST", tc.prefix+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, &rpc)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.EqualValues(t, 1, rpc["id"])
			tools := rpc["result"].(map[string]any)["tools"].([]any)
			assert.Contains(t, string(mustJSON(t, tools)), `"name":"submit"`)
			code, raw = h.call("POST", tc.prefix+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "nope"}, &rpc)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.EqualValues(t, -32601, rpc["error"].(map[string]any)["code"])

			// Stateless reset: an episode opened and closed at once.
			var obs map[string]any
			code, raw = h.call("POST", tc.prefix+"/reset", map[string]any{"task": e.Task.ID, "checkpoint": 11}, &obs)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.Equal(t, false, obs["done"])
			id := obs["observation"].(map[string]any)["episode_id"].(string)
			h.tok = tc.token
			var sum server.EpisodeSummary
			code, raw = h.call("GET", "/v1/episodes/"+id, nil, &sum)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.Equal(t, server.StateClosed, sum.State)
			h.tok = ""
			code, raw = h.call("POST", tc.prefix+"/step", map[string]any{"name": "shell"}, &obs)
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.Equal(t, true, obs["done"])
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
