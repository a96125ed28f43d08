package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
		fmt.Sprintf("--window-size=%d,%d", width, height), fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds())}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	for _, line := range strings.Split(errOut.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			assert.Fail(t, "browser console", "%s: %s", url, line)
		}
	}
	return out.String()
}

// TestChromium drives the dashboard in a real headless browser: the
// overview and a task page render without a console message, the task
// page's script swaps in fresh charts (its HTML is served stale, its live
// route is not), and screenshots at a laptop's and a phone's width are
// kept (in $RBX_TEST_ARTEFACTS when set).
func TestChromium(t *testing.T) {
	bin := chromium(t)
	var stale atomic.Pointer[string] // the task page as first served: 0 points
	h := newWrappedHarness(t, "", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if html := stale.Load(); html != nil && r.URL.Path == "/ui/tasks/"+taskID {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = w.Write([]byte(*html))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	first := h.get("/ui/tasks/" + taskID)
	require.Equal(t, "0", attr(t, svgs(t, first)["served"], "data-points"))
	stale.Store(&first)

	played := 0
	for ; played < 200; played++ {
		if h.live("/ui/tasks/" + taskID + "/live").Solved {
			break
		}
		h.episode(played == 0)
	}
	dom := browse(t, bin, h.url+"/ui/tasks/"+taskID, 5*time.Second, 1280, 900, "")
	assert.Regexp(t, `id="live-status" class="live ok">live · `, dom, "the script polled")
	charts := svgs(t, dom)
	require.Len(t, charts, 3, dom)
	assert.Equal(t, fmt.Sprint(played), attr(t, charts["served"], "data-points"), "the stale page's charts were swapped for live ones")
	assert.Equal(t, "0", attr(t, charts["served"], "data-k-now"), "the rollback position reached 0")
	assert.Regexp(t, regexp.MustCompile(`id="k-now" data-k="0"`), dom)

	ov := browse(t, bin, h.url+"/ui/", 3*time.Second, 1280, 900, "")
	assert.Contains(t, ov, `data-task="run-sh-path" data-k="0"`)

	dir := os.Getenv("RBX_TEST_ARTEFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	stale.Store(nil)
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
