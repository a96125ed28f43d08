package rock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// localBackend starts plain sandboxes of the local backend and counts the
// live ones; rbx:// images are refused (the server's tests cover them).
type localBackend struct {
	rt   *local.Runtime
	live atomic.Int64
}

func (b *localBackend) Start(ctx context.Context, req StartRequest) (Lease, error) {
	if req.Ref != nil {
		return nil, errNoTasks
	}
	sb, err := b.rt.Create(ctx, sandbox.Spec{})
	if err != nil {
		return nil, err
	}
	b.live.Add(1)
	return &SandboxLease{SB: sb, Meta: map[string]string{"rbx.kind": "image"}, Release: func() { b.live.Add(-1) }}, nil
}

var errNoTasks = errors.New("no tasks in this backend")

// testAPI is a Handler on a local backend behind an httptest server.
type testAPI struct {
	t   *testing.T
	srv *httptest.Server
	h   *Handler
	be  *localBackend
}

func newTestAPI(t *testing.T, opts ...Option) *testAPI {
	t.Helper()
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	be := &localBackend{rt: rt}
	h := New(be, opts...)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, h.Close(context.Background()))
		require.Zero(t, be.live.Load(), "every sandbox removed at Close")
		_ = rt.Close()
	})
	return &testAPI{t: t, srv: srv, h: h, be: be}
}

// reply is a decoded envelope, with the raw result kept for null checks.
type reply struct {
	Status  string          `json:"status"`
	Message *string         `json:"message"`
	Error   *string         `json:"error"`
	Result  json.RawMessage `json:"result"`
}

// result decodes the result into a map.
func (r reply) result(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Result, &m), string(r.Result))
	return m
}

// do sends a request and checks the transport trap: always HTTP 200.
func (a *testAPI) do(method, path, ctype string, body io.Reader) reply {
	a.t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+Prefix+path, body)
	require.NoError(a.t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	require.Equal(a.t, http.StatusOK, res.StatusCode, "ROCK answers HTTP 200 whatever happened")
	var r reply
	require.NoError(a.t, json.NewDecoder(res.Body).Decode(&r))
	return r
}

func (a *testAPI) post(path string, body any) reply {
	a.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(a.t, err)
	return a.do("POST", path, "application/json", bytes.NewReader(b))
}

func (a *testAPI) get(path string) reply { a.t.Helper(); return a.do("GET", path, "", nil) }

// start starts a sandbox and polls get_status until it is alive.
func (a *testAPI) start(body map[string]any) string {
	a.t.Helper()
	r := a.post("/start_async", body)
	require.Equal(a.t, statusSuccess, r.Status, "%+v", r)
	id := r.result(a.t)["sandbox_id"].(string)
	require.Eventually(a.t, func() bool {
		st := a.get("/get_status?sandbox_id=" + id + "&include_all_states=False")
		return st.Status == statusSuccess && st.result(a.t)["is_alive"] == true
	}, 30*time.Second, 50*time.Millisecond)
	return id
}
