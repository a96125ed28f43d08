package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a headless browser ($RBX_CHROMIUM, or Debian's chromium
// on PATH) or skips.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a headless browser")
	}
	if p := os.Getenv("RBX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "no chromium on PATH (apt-get install chromium, or set RBX_CHROMIUM)")
	return ""
}

// browse loads url in headless chromium for budget of virtual time (the
// page's timers run: live.js polls) and returns the DOM then; any
// message on the browser console (script error, CSP violation, failed
// load) fails the test. With shot set, it writes a screenshot instead of
// dumping the DOM.
func browse(t *testing.T, bin, url string, budget time.Duration, width, height int, shot string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, console, err := runBrowser(ctx, bin, t.TempDir(), url, budget, width, height, shot)
	require.NoError(t, err)
	checkConsole(t, url, console)
	return dom
}

// runBrowser is browse without the test: it may run on any goroutine. It
// returns the DOM (or nothing with shot set), chromium's stderr and the
// error of the run.
func runBrowser(ctx context.Context, bin, profile, url string, budget time.Duration, width, height int, shot string) (string, string, error) {
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
		fmt.Sprintf("--window-size=%d,%d", width, height), fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds())}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", errOut.String(), fmt.Errorf("chromium %s: %w: %s", url, err, errOut.String())
	}
	return out.String(), errOut.String(), nil
}

// checkConsole fails the test for every browser console line in stderr.
func checkConsole(t *testing.T, url, stderr string) {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			assert.Fail(t, "browser console", "%s: %s", url, line)
		}
	}
}

// TestChromium drives the dashboard in a real headless browser while an
// expert client runs a curriculum: the task page's script polls its live
// route, each poll answered only after the client played one more
// episode, so the browser follows the curriculum as it runs — the charts'
// data points grow poll after poll and the rollback position reaches 0.
// The overview and the task page render without a console message, and
// screenshots at a laptop's and a phone's width are kept (in
// $RBX_TEST_ARTEFACTS when set).
func TestChromium(t *testing.T) {
	bin := chromium(t)
	livePath := "/ui/tasks/" + taskID + "/live"
	type poll struct{ points, k int }
	var (
		mu      sync.Mutex
		seen    []poll
		polled  = make(chan struct{}, 1)
		release = make(chan struct{})
		done    atomic.Bool
	)
	h := newWrappedHarness(t, "", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != livePath || !strings.Contains(r.UserAgent(), "Chrome") {
				next.ServeHTTP(w, r)
				return
			}
			if !done.Load() { // hold the browser's poll until the client played an episode
				select {
				case polled <- struct{}{}:
				default:
				}
				select {
				case <-release:
				case <-time.After(30 * time.Second):
				case <-r.Context().Done():
				}
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var l live
			if json.Unmarshal(rec.Body.Bytes(), &l) == nil {
				mu.Lock()
				seen = append(seen, poll{l.Points, l.K})
				mu.Unlock()
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		})
	})
	require.Equal(t, "0", attr(t, svgs(t, h.get("/ui/tasks/"+taskID))["served"], "data-points"))

	type result struct{ dom, console string }
	browsed := make(chan result, 1)
	browseErr := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	profile := t.TempDir()
	go func() {
		// Virtual time stands still while a fetch is pending, so the
		// budget counts polls, not the client's real time.
		dom, console, err := runBrowser(ctx, bin, profile, h.url+"/ui/tasks/"+taskID, 600*time.Second, 1280, 900, "")
		browsed <- result{dom, console}
		browseErr <- err
	}()

	played := 0
	for solved := false; !solved && played < 200; played++ {
		select {
		case <-polled:
		case <-time.After(90 * time.Second):
			require.FailNow(t, "the browser stopped polling", "after %d episodes", played)
		}
		h.episode(played == 0)
		solved = h.live(livePath).Solved
		if solved {
			done.Store(true)
		}
		release <- struct{}{}
	}
	res := <-browsed
	require.NoError(t, <-browseErr)
	checkConsole(t, "task page", res.console)
	dom := res.dom
	assert.Regexp(t, `id="live-status" class="live ok">live · `, dom, "the script polled")
	mu.Lock()
	polls := slices.Clone(seen)
	mu.Unlock()
	t.Logf("%d episodes; the browser's polls saw (points, k): %v", played, polls)
	require.GreaterOrEqual(t, len(polls), 3, "the browser polled while the curriculum ran")
	for i := 1; i < len(polls); i++ {
		assert.GreaterOrEqual(t, polls[i].points, polls[i-1].points, "data points never shrink: %v", polls)
		assert.LessOrEqual(t, polls[i].k, polls[i-1].k, "the rollback position only walks back: %v", polls)
	}
	assert.Less(t, polls[0].points, polls[len(polls)-1].points, "data points grew under the browser's eyes: %v", polls)
	assert.Equal(t, played, polls[len(polls)-1].points, "the last poll saw every episode")
	assert.Equal(t, 0, polls[len(polls)-1].k, "the browser saw the rollback position reach 0")
	charts := svgs(t, dom)
	require.Len(t, charts, 3, dom)
	assert.Equal(t, fmt.Sprint(played), attr(t, charts["served"], "data-points"), "the page's charts are the live ones")
	assert.Equal(t, "0", attr(t, charts["served"], "data-k-now"), "the rollback position reached 0")
	assert.Regexp(t, regexp.MustCompile(`id="k-now" data-k="0"`), dom)

	ov := browse(t, bin, h.url+"/ui/", 3*time.Second, 1280, 900, "")
	assert.Contains(t, ov, `data-task="run-sh-path" data-k="0"`)

	dir := os.Getenv("RBX_TEST_ARTEFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, size := range []struct {
		name          string
		width, height int
	}{{"laptop", 1280, 1400}, {"phone", 390, 2400}} {
		for page, path := range map[string]string{"overview": "/ui/", "task": "/ui/tasks/" + taskID} {
			file := filepath.Join(dir, fmt.Sprintf("dashboard-%s-%s.png", page, size.name))
			browse(t, bin, h.url+path, 3*time.Second, size.width, size.height, file)
			st, err := os.Stat(file)
			require.NoError(t, err)
			assert.Greater(t, st.Size(), int64(10_000), file)
			t.Logf("screenshot %s", file)
		}
	}
}
