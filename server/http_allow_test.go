package server_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/server"
)

// TestServeHTTPToolCallStaysInServices: a policy's http tool call is held
// to the task's services like a recorded step: a sibling prefix and a
// redirect off the list never reach the service and come back as the
// observation's error; a POST answered 503 is sent once.
func TestServeHTTPToolCallStaysInServices(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/svc/r":
			http.Redirect(w, r, "/evil", http.StatusFound)
		case "/svc/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte(`{"ok": true}`))
		}
	}))
	t.Cleanup(svc.Close)

	e := runShPath(t)
	tk := *e.Task
	tk.Services = maps.Clone(tk.Services)
	if tk.Services == nil {
		tk.Services = map[string]string{}
	}
	tk.Services["svc"] = svc.URL + "/svc"
	e.Task = &tk
	h := newHarness(t, nil, []server.Entry{e})
	ep := h.reset(tk.ID, 0)

	call := func(method, path string) server.StepResponse {
		return h.step(ep.ID, map[string]any{"name": "http", "arguments": map[string]any{"method": method, "url": svc.URL + path}}, false)
	}
	ok := call("GET", "/svc/ok")
	assert.Equal(t, 200, ok.Observation.Status)
	assert.Empty(t, ok.Observation.Error)

	evil := call("GET", "/svc-evil")
	assert.Contains(t, evil.Observation.Error, "not under any of the task's services")
	redirect := call("GET", "/svc/r")
	assert.Contains(t, redirect.Observation.Error, "redirect to "+svc.URL+"/evil refused")
	busy := call("POST", "/svc/busy")
	assert.Equal(t, 503, busy.Observation.Status)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"GET /svc/ok": 1, "GET /svc/r": 1, "POST /svc/busy": 1}, hits)
}
