package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/dashboard"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

const taskID = "run-sh-path"

// wrong destroys the work: an episode that plays it cannot succeed.
var wrong = map[string]any{"name": "shell", "arguments": map[string]any{"command": "rm -rf scripts run.sh"}}

// example loads the run-sh-path example (busybox, shell steps only).
func example(t testing.TB) server.Entry {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	dir := filepath.Join(filepath.Dir(file), "..", "examples", taskID)
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return server.Entry{Task: tk, Ref: trs[0]}
}

// harness is `rbx serve` with its dashboard on a loopback httptest
// listener, on the local runtime, with the sequential curriculum.
type harness struct {
	t   testing.TB
	url string
	tok string
	ref *trajectory.Trajectory
}

func newHarness(t testing.TB, token string) *harness {
	t.Helper()
	return newWrappedHarness(t, token, nil)
}

// newWrappedHarness serves through wrap (when not nil) in front of the
// server and its dashboard.
func newWrappedHarness(t testing.TB, token string, wrap func(http.Handler) http.Handler) *harness {
	t.Helper()
	e := example(t)
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	rp, err := replayer.New(replayer.WithExcerpt(64 << 10))
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Sequential))
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, []server.Entry{e}, server.WithToken(token))
	require.NoError(t, err)
	h, err := dashboard.Mount(srv.Handler(), dashboard.WithToken(token))
	require.NoError(t, err)
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	return &harness{t: t, url: hs.URL, tok: token, ref: e.Ref}
}

// do sends a request (JSON body when body is not nil) with the token and
// returns the status, the body and the response headers.
func (h *harness) do(method, path string, body any) (int, string, http.Header) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	require.NoError(h.t, err)
	if h.tok != "" {
		req.Header.Set("Authorization", "Bearer "+h.tok)
	}
	resp, err := noRedirect.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return resp.StatusCode, string(raw), resp.Header
}

// get requires a 200 and returns the body.
func (h *harness) get(path string) string {
	h.t.Helper()
	code, body, _ := h.do("GET", path, nil)
	require.Equal(h.t, http.StatusOK, code, "GET %s: %s", path, body)
	return body
}

// post requires a 200 and decodes the answer into out.
func (h *harness) post(path string, body, out any) {
	h.t.Helper()
	code, raw, _ := h.do("POST", path, body)
	require.Equal(h.t, http.StatusOK, code, "POST %s: %s", path, raw)
	if out != nil {
		require.NoError(h.t, json.Unmarshal([]byte(raw), out))
	}
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// refCall is the tool call that replays reference step i.
func refCall(t testing.TB, ref *trajectory.Trajectory, i int) map[string]any {
	t.Helper()
	s := ref.Steps[i]
	s.Observation, s.Tokens, s.Messages, s.Checkpoint, s.Volatile, s.Compare = nil, 0, nil, nil, false, ""
	b, err := json.Marshal(s)
	require.NoError(t, err)
	args := map[string]any{}
	require.NoError(t, json.Unmarshal(b, &args))
	delete(args, "action")
	return map[string]any{"name": string(s.Action), "arguments": args}
}

// episode plays one curriculum episode: the reference suffix from the
// curriculum's k, or a wrong action first when fail is set. It returns
// the episode id and k.
func (h *harness) episode(fail bool) (string, int) {
	h.t.Helper()
	var rr api.ResetResponse
	h.post("/v1/reset", map[string]any{"task": taskID}, &rr)
	ep := rr.Episodes[0]
	if fail {
		h.post("/v1/episodes/"+ep.ID+"/step", map[string]any{"tool_call": wrong}, nil)
	} else {
		for i := ep.K; i < h.ref.Len(); i++ {
			h.post("/v1/episodes/"+ep.ID+"/step", map[string]any{"tool_call": refCall(h.t, h.ref, i)}, nil)
		}
	}
	h.post("/v1/episodes/"+ep.ID+"/evaluate", nil, nil)
	return ep.ID, ep.K
}

var svgPattern = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// svgs returns the SVG documents in html, each checked well-formed XML.
func svgs(t testing.TB, html string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, doc := range svgPattern.FindAllString(html, -1) {
		wellFormed(t, doc)
		name := regexp.MustCompile(`data-chart="([a-z]+)"`).FindStringSubmatch(doc)
		require.Len(t, name, 2, doc[:min(len(doc), 200)])
		out[name[1]] = doc
	}
	return out
}

// wellFormed parses doc as strict XML to its end.
func wellFormed(t testing.TB, doc string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		require.NoError(t, err, "SVG is not well-formed XML")
	}
}

// attr returns the value of the first name="..." in doc.
func attr(t testing.TB, doc, name string) string {
	t.Helper()
	m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(doc)
	require.Len(t, m, 2, "no %s in %.200s", name, doc)
	return m[1]
}
