package replayer_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// service is a loopback HTTP service that counts the requests to each path.
type service struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// newService serves: /svc/ok (200), /svc-evil and /evil (200, must never be
// reached), /svc/flaky (503 on the first request, then 200), /svc/down
// (always 503), /svc/in (302 to /svc/ok), /svc/r (302 to /evil), /svc/away
// (302 to other+"/svc/ok"), /svc/dots (302 to /svc/../evil), /svc/loop
// (302 to itself).
func newService(t *testing.T, other string) *service {
	t.Helper()
	s := &service{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		n := s.hits[r.URL.Path]
		s.mu.Unlock()
		switch r.URL.Path {
		case "/svc/flaky":
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		case "/svc/down":
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case "/svc/in":
			http.Redirect(w, r, "/svc/ok", http.StatusFound)
			return
		case "/svc/r":
			http.Redirect(w, r, "/evil", http.StatusFound)
			return
		case "/svc/away":
			http.Redirect(w, r, other+"/svc/ok", http.StatusFound)
			return
		case "/svc/dots":
			w.Header().Set("Location", s.URL+"/svc/../evil")
			w.WriteHeader(http.StatusFound)
			return
		case "/svc/loop":
			http.Redirect(w, r, "/svc/loop", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"path": "` + r.URL.Path + `"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// fastRetries is the default retry policy with millisecond waits.
func fastRetries() *retryablehttp.Client {
	hc := retryablehttp.NewClient()
	hc.RetryMax, hc.RetryWaitMin, hc.RetryWaitMax, hc.Logger = 3, time.Millisecond, 5*time.Millisecond, nil
	return hc
}

// TestHTTPStepAllowListAndRetries runs http steps against real loopback
// services, as a policy's tool calls (Run.Do) and as recorded steps
// (Replay), and counts what reached the services.
func TestHTTPStepAllowListAndRetries(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		method string
		path   string // under the service's URL; "OTHER" prefixes the undeclared service
		retry  *bool
		status int            // 0: refused as action_failed
		why    string         // part of the refusal
		hits   map[string]int // requests that reached the service
		other  int            // requests that reached the undeclared service
	}{
		{name: "declared path", method: "GET", path: "/svc/ok", status: 200, hits: map[string]int{"/svc/ok": 1}},
		{name: "sibling prefix refused", method: "GET", path: "/svc-evil", why: "not under any of the task's services", hits: map[string]int{"/svc-evil": 0}},
		{name: "dot segments refused", method: "GET", path: "/svc/../evil", why: "not under any", hits: map[string]int{"/evil": 0}},
		{name: "encoded dots refused", method: "GET", path: "/svc/%2e%2e/evil", why: "encoded", hits: map[string]int{"/evil": 0}},
		{name: "redirect within the service followed", method: "GET", path: "/svc/in", status: 200, hits: map[string]int{"/svc/in": 1, "/svc/ok": 1}},
		{name: "redirect off the prefix refused", method: "GET", path: "/svc/r", why: "redirect to", hits: map[string]int{"/svc/r": 1, "/evil": 0}},
		{name: "redirect to another host refused", method: "GET", path: "/svc/away", why: "redirect to", hits: map[string]int{"/svc/away": 1}},
		{name: "redirect through dot segments refused", method: "GET", path: "/svc/dots", why: "redirect to", hits: map[string]int{"/svc/dots": 1, "/evil": 0}},
		{name: "redirect loop bounded", method: "GET", path: "/svc/loop", why: "more than 10 redirects", hits: map[string]int{"/svc/loop": 11}},
		{name: "GET retried", method: "GET", path: "/svc/flaky", status: 200, hits: map[string]int{"/svc/flaky": 2}},
		{name: "POST sent once", method: "POST", path: "/svc/flaky", status: 503, hits: map[string]int{"/svc/flaky": 1}},
		{name: "PATCH sent once", method: "PATCH", path: "/svc/flaky", status: 503, hits: map[string]int{"/svc/flaky": 1}},
		{name: "POST with retry true retried", method: "POST", path: "/svc/flaky", retry: &yes, status: 200, hits: map[string]int{"/svc/flaky": 2}},
		{name: "GET with retry false sent once", method: "GET", path: "/svc/flaky", retry: &no, status: 503, hits: map[string]int{"/svc/flaky": 1}},
		{name: "PUT retried until the retries run out", method: "PUT", path: "/svc/down", why: "giving up after 4 attempt(s)", hits: map[string]int{"/svc/down": 4}},
		{name: "undeclared host refused", method: "GET", path: "OTHER/svc/ok", why: "not under any", hits: map[string]int{"/svc/ok": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := newService(t, "")
			svc := newService(t, other.URL)
			rp, err := replayer.New(replayer.WithHTTPClient(fastRetries()))
			require.NoError(t, err)
			tk := &task.Task{ID: "t", Services: map[string]string{"svc": svc.URL + "/svc"}}
			url := svc.URL + tc.path
			if len(tc.path) > 5 && tc.path[:5] == "OTHER" {
				url = other.URL + tc.path[5:]
			}
			step := trajectory.Step{Action: trajectory.KindHTTP, Method: tc.method, URL: url, Retry: tc.retry}
			run := rp.Start(newFake(nil), tk, &trajectory.Trajectory{ID: "x"})
			res, err := run.Do(context.Background(), step)
			switch {
			case tc.status != 0:
				require.NoError(t, err)
				assert.Equal(t, tc.status, res.ExitCode)
			case tc.why == "giving up after 4 attempt(s)":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.why)
			default:
				var se *replayer.StepError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, reason.Action, se.Reason)
				assert.Contains(t, err.Error(), tc.why)
				obs, oerr := replayer.Observe(res, err)
				require.NoError(t, oerr, "a refusal is told to the agent, not an infrastructure failure")
				assert.Contains(t, obs.Error, tc.why)
			}
			for path, n := range tc.hits {
				assert.Equal(t, n, svc.count(path), "requests to %s", path)
			}
			assert.Equal(t, tc.other, other.count("/svc/ok"), "requests to the undeclared service")
		})
	}
}

// TestHTTPReplayRefusesSiblingPrefix: a recorded step is held to the same
// allow-list as a policy's call, and its refusal stops the replay.
func TestHTTPReplayRefusesSiblingPrefix(t *testing.T) {
	svc := newService(t, "")
	rp, err := replayer.New(replayer.WithHTTPClient(fastRetries()), replayer.WithServices(map[string]string{"svc": svc.URL + "/svc"}))
	require.NoError(t, err)
	tk := &task.Task{ID: "t", Services: map[string]string{"svc": "http://example.invalid/svc"}}
	traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{
		{Action: trajectory.KindHTTP, Method: "GET", URL: "{{services.svc}}/ok", Volatile: true, Observation: &trajectory.Observation{Status: 200}},
		{Action: trajectory.KindHTTP, Method: "GET", URL: "{{services.svc}}-evil", Volatile: true, Observation: &trajectory.Observation{Status: 200}},
	}}
	rep, err := rp.Replay(context.Background(), newFake(nil), tk, traj, 2)
	var se *replayer.StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Index)
	assert.Equal(t, reason.Action, se.Reason)
	assert.Contains(t, err.Error(), "not under any of the task's services")
	require.Len(t, rep.Steps, 2)
	assert.Equal(t, 1, svc.count("/svc/ok"))
	assert.Equal(t, 0, svc.count("/svc-evil"))
}

// TestHTTPRetryOnConnectionErrors: a connection that could not be opened
// is retried whatever the method (nothing was sent); a connection dropped
// after the request was sent is retried only for idempotent methods.
func TestHTTPRetryOnConnectionErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	var mu sync.Mutex
	dropped := 0
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		dropped++
		mu.Unlock()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	t.Cleanup(drop.Close)

	tests := []struct {
		name, method, base string
		attempts, received int
	}{
		{"POST to a closed port retried", "POST", closed, 4, 0},
		{"POST dropped after sending not retried", "POST", drop.URL, 1, 1},
		{"GET dropped after sending retried", "GET", drop.URL, 4, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			dropped = 0
			mu.Unlock()
			rp, err := replayer.New(replayer.WithHTTPClient(fastRetries()))
			require.NoError(t, err)
			tk := &task.Task{ID: "t", Services: map[string]string{"svc": tc.base}}
			run := rp.Start(newFake(nil), tk, &trajectory.Trajectory{ID: "x"})
			_, err = run.Do(context.Background(), trajectory.Step{Action: trajectory.KindHTTP, Method: tc.method, URL: tc.base + "/x"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("giving up after %d attempt(s)", tc.attempts))
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.received, dropped, "requests that reached the service")
		})
	}
}
