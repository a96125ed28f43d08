package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
)

// treeCommand prints a digest of every path under root (names, sizes,
// modes, owners, mtimes, and the content of regular files), pseudo file
// systems left out: two equal digests mean an unchanged file tree.
func treeCommand(root string) string {
	prune := `\( -path ./proc -o -path ./sys -o -path ./dev \) -prune -o`
	return fmt.Sprintf(`cd %s && { find . -xdev %s -exec stat -c '%%n %%s %%a %%u %%g %%Y' {} + | sort; find . -xdev %s -type f -exec sha256sum {} + | sort; } | sha256sum`,
		root, prune, prune)
}

func treeDigest(t *testing.T, sb sandbox.Sandbox, root string) string {
	t.Helper()
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: treeCommand(root), Mode: sandbox.ModeExec, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%s", res.Output)
	return strings.TrimSpace(string(res.Output))
}

// evidenceLeavesSandbox plays run-sh-path from k=4 up to step 9 (the
// script written under scripts/, not yet moved), asks for the evidence
// with the verifier, and checks the answer and that the live sandbox's
// tree under root is byte-for-byte what it was, without verifier files.
func evidenceLeavesSandbox(t *testing.T, rt sandbox.Runtime, root string) {
	e := runShPath(t)
	h := newHarness(t, rt, []server.Entry{e}, server.WithEvidenceInterval(time.Hour))
	ep := h.reset(e.Task.ID, 4)
	for i := 4; i < 9; i++ {
		h.step(ep.ID, refCall(t, e.Ref, i), false)
	}
	sb := h.srv.SandboxOf(ep.ID)
	require.NotNil(t, sb)
	before := treeDigest(t, sb, root)
	require.Equal(t, before, treeDigest(t, sb, root), "the digest itself must be stable")

	var ev server.EvidenceResponse
	code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evidence", map[string]any{"verifier": true}, &ev)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, 9, ev.At)
	assert.InDelta(t, 1.0/3, ev.Score, 1e-9, "script written, not at the root: %+v", ev.Rubric)
	require.NotNil(t, ev.Verifier)
	assert.False(t, ev.Verifier.Passed)
	assert.Equal(t, 9, ev.Cost.StepsReplayed)
	assert.Equal(t, 4, ev.Cost.PrefixSteps)
	assert.Equal(t, 5, ev.Cost.ActionSteps)
	assert.Empty(t, ev.Cost.Diverged)
	assert.Positive(t, ev.Cost.TotalMS)

	assert.Equal(t, before, treeDigest(t, sb, root), "the evidence call changed the live sandbox")
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "ls -a /workspace; test ! -e /workspace/.rbx-tests", Mode: sandbox.ModeExec})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode, "verifier files reached the live sandbox: %s", res.Output)

	// The digest does see a change (the check can fail).
	defer func() {
		require.NoError(t, sb.WriteFile(context.Background(), "/workspace/.touched", []byte("x"), 0))
		assert.NotEqual(t, before, treeDigest(t, sb, root))
	}()

	// The rate limit: a second call within the interval.
	code, raw = h.call("POST", "/v1/episodes/"+ep.ID+"/evidence", nil, nil)
	assert.Equal(t, http.StatusTooManyRequests, code)
	assert.Equal(t, server.CodeRateLimited, errorCode(t, raw))

}

// TestIntegrationEvidenceLeavesLiveSandbox: on Docker the whole container
// file tree is compared.
func TestIntegrationEvidenceLeavesLiveSandbox(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	evidenceLeavesSandbox(t, rt, "/")
}

// TestEvidenceLeavesLiveSandboxLocal: the same on the local runtime, whose
// sandbox is its workdir.
func TestEvidenceLeavesLiveSandboxLocal(t *testing.T) {
	evidenceLeavesSandbox(t, nil, ".")
}

func TestEvidenceRequests(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithEvidenceInterval(0))
	ep := h.reset(e.Task.ID, 9)
	h.step(ep.ID, refCall(t, e.Ref, 9), false)
	tests := []struct {
		name  string
		body  map[string]any
		code  int
		at    int
		score float64
	}{
		{"current state", nil, http.StatusOK, 10, 1},
		{"at k", map[string]any{"t": 9}, http.StatusOK, 9, 1.0 / 3},
		{"in the prefix", map[string]any{"t": 3}, http.StatusOK, 3, 0},
		{"past the end", map[string]any{"t": 11}, http.StatusBadRequest, 0, 0},
		{"negative", map[string]any{"t": -1}, http.StatusBadRequest, 0, 0},
		{"unknown field", map[string]any{"verify": true}, http.StatusBadRequest, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev server.EvidenceResponse
			code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evidence", tt.body, &ev)
			require.Equal(t, tt.code, code, "%s", raw)
			if code != http.StatusOK {
				return
			}
			assert.Equal(t, tt.at, ev.At)
			assert.InDelta(t, tt.score, ev.Score, 1e-9)
			assert.Nil(t, ev.Verifier, "not asked for")
		})
	}
	code, raw := h.call("POST", "/v1/episodes/ep_00000000000000000000/evidence", nil, nil)
	assert.Equal(t, http.StatusNotFound, code, "%s", raw)
}

func TestEvidenceRateLimitRetryAfter(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithEvidenceInterval(30*time.Second))
	ep := h.reset(e.Task.ID, 11)
	code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evidence", nil, nil)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	req, err := http.NewRequest("POST", h.url+"/v1/episodes/"+ep.ID+"/evidence", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Contains(t, []string{"29", "30"}, resp.Header.Get("Retry-After"))
	// Another episode has its own budget.
	other := h.reset(e.Task.ID, 11)
	code, raw = h.call("POST", "/v1/episodes/"+other.ID+"/evidence", nil, nil)
	assert.Equal(t, http.StatusOK, code, "%s", raw)
}
