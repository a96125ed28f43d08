package dashboard_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// live is a task page's polling answer.
type live struct {
	Fragments map[string]string `json:"fragments"`
	K         int               `json:"k"`
	Phase     string            `json:"phase"`
	Solved    bool              `json:"solved"`
	Points    int               `json:"points"`
}

func (h *harness) live(path string) live {
	h.t.Helper()
	var l live
	require.NoError(h.t, json.Unmarshal([]byte(h.get(path)), &l))
	return l
}

// TestDashboardFollowsCurriculum plays a sequential curriculum to the end
// (one failure at the start, then the reference) and checks that the
// overview, the task page, its live route and its charts follow it: the
// data points grow, the rollback position walks back to 0.
func TestDashboardFollowsCurriculum(t *testing.T) {
	h := newHarness(t, "")
	ov := h.get("/ui/")
	assert.Contains(t, ov, `<a href="/ui/tasks/run-sh-path">run-sh-path</a>`)
	assert.Contains(t, ov, `data-task="run-sh-path" data-k="11"`)
	assert.Contains(t, ov, `<td data-label="T">12</td>`)
	assert.Contains(t, ov, `<td data-label="strategy">sequential</td>`)
	assert.Contains(t, ov, `<span class="phase phase-rollback">rollback</span>`)
	assert.Contains(t, ov, `<td data-label="class idle / in use">`)
	assert.Regexp(t, `id="capacity" data-live="\d+" data-max="\d+"`, ov, "the budget and its use")
	before := h.live("/ui/tasks/run-sh-path/live")
	assert.Equal(t, 0, before.Points)
	assert.Contains(t, before.Fragments["chart-success"], `data-points="0"`)

	played, last := 0, before.Points
	h.episode(true)
	for played = 1; played < 200; played++ {
		l := h.live("/ui/tasks/run-sh-path/live")
		require.Equal(t, played, l.Points, "one data point per observed episode")
		require.Greater(t, l.Points, last)
		last = l.Points
		if l.Solved {
			break
		}
		h.episode(false)
	}
	after := h.live("/ui/tasks/run-sh-path/live")
	require.True(t, after.Solved, "not solved after %d episodes", played)
	assert.Equal(t, 0, after.K)

	page := h.get("/ui/tasks/run-sh-path")
	charts := svgs(t, page)
	require.Len(t, charts, 3)
	assert.Equal(t, strconv.Itoa(played), attr(t, charts["success"], "data-points"))
	assert.Equal(t, strconv.Itoa(played), attr(t, charts["served"], "data-points"))
	assert.Equal(t, "0", attr(t, charts["served"], "data-k-now"), "the rollback position reached 0")
	assert.Equal(t, "12", attr(t, charts["checkpoints"], "data-points"), "every checkpoint saw episodes")
	assert.Contains(t, page, `id="k-now" data-k="0"`)
	assert.Contains(t, page, "k 1 → 0", "the rollback history")
	assert.Contains(t, page, "k 11 → 10")
	assert.Contains(t, page, "No checkpoint is flagged.")
	assert.Contains(t, page, `<span class="phase phase-solved">solved</span>`)

	for _, name := range []string{"success", "served", "checkpoints"} {
		code, body, hdr := h.do("GET", "/ui/tasks/run-sh-path/charts/"+name+".svg", nil)
		require.Equal(t, http.StatusOK, code, body)
		assert.Equal(t, "image/svg+xml", hdr.Get("Content-Type"))
		wellFormed(t, body)
	}
	code, _, _ := h.do("GET", "/ui/tasks/run-sh-path/charts/pie.svg", nil)
	assert.Equal(t, http.StatusNotFound, code)

	ov = h.get("/ui/")
	assert.Contains(t, ov, `data-task="run-sh-path" data-k="0"`)
	assert.Contains(t, ov, fmt.Sprintf(`<td data-label="observed">%d/%d</td>`, played-1, played))
	step := regexp.MustCompile(`<dt>step latency</dt><dd>([^<]+)`).FindStringSubmatch(ov)
	require.Len(t, step, 2)
	assert.Regexp(t, `^[0-9.]+ ms $`, step[1], "the server's own step latency")
	var ol struct {
		Fragments map[string]string `json:"fragments"`
		Tasks     int               `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal([]byte(h.get("/ui/live")), &ol))
	assert.Equal(t, 1, ol.Tasks)
	assert.Contains(t, ol.Fragments["tasks"], `data-task="run-sh-path"`)
	assert.Contains(t, ol.Fragments["figures"], "resets/s")
}

// TestEpisodePage: a fork with inherited and intervened steps shows the
// reference prefix, each source marked, the verifier's rubric and output,
// and exports in the three formats.
func TestEpisodePage(t *testing.T) {
	h := newHarness(t, "")
	var rr struct {
		Episodes []struct {
			ID string `json:"id"`
		} `json:"episodes"`
	}
	h.post("/v1/reset", map[string]any{"task": taskID, "checkpoint": 4}, &rr)
	parent := rr.Episodes[0].ID
	for i := 4; i < 7; i++ {
		h.post("/v1/episodes/"+parent+"/step", map[string]any{"tool_call": refCall(t, h.ref, i)}, nil)
	}
	h.post("/v1/episodes/"+parent+"/step", map[string]any{"tool_call": wrong}, nil)
	open := h.live("/ui/episodes/" + parent + "/live")
	assert.Contains(t, open.Fragments["steps"], `data-step="7" data-source="policy"`)
	h.post("/v1/episodes/"+parent+"/evaluate", nil, nil)
	var fr struct {
		Episode struct {
			ID string `json:"id"`
		} `json:"episode"`
	}
	h.post("/v1/episodes/"+parent+"/fork", map[string]any{"t": 7}, &fr)
	fork := fr.Episode.ID
	for i := 7; i < h.ref.Len(); i++ {
		h.post("/v1/episodes/"+fork+"/step", map[string]any{"tool_call": refCall(t, h.ref, i), "intervened": true}, nil)
	}
	h.post("/v1/episodes/"+fork+"/evaluate", nil, nil)

	page := h.get("/ui/episodes/" + fork)
	for src, n := range map[string]int{"reference": 4, "inherited": 3, "intervened": 5, "policy": 0} {
		assert.Equal(t, n, strings.Count(page, `data-source="`+src+`"`), src)
	}
	assert.Contains(t, page, `data-step="0" data-source="reference"`)
	assert.Contains(t, page, `data-step="11" data-source="intervened"`)
	assert.Contains(t, page, "total=14024", "the live observation of ./run.sh")
	assert.Contains(t, page, "script-written", "the rubric")
	assert.Contains(t, page, `<a href="/ui/episodes/`+parent+`">`, "the parent")
	assert.Contains(t, page, `<span class="ok">success</span>`)
	assert.Contains(t, page, "shift exceeded", "5/8 intervened is over the default 0.5")
	parentPage := h.get("/ui/episodes/" + parent)
	assert.Contains(t, parentPage, `<span class="bad">failure</span>`)
	assert.Contains(t, parentPage, "verifier output")

	for format, key := range map[string]string{"native": `"steps"`, "atif": `"schema_version"`, "openai": `"messages"`} {
		path := "/ui/episodes/" + fork + "/export/" + format
		assert.Contains(t, page, `href="`+path+`"`)
		code, body, hdr := h.do("GET", path, nil)
		require.Equal(t, http.StatusOK, code, body)
		assert.True(t, json.Valid([]byte(body)), format)
		assert.Contains(t, body, key, format)
		assert.Contains(t, hdr.Get("Content-Disposition"), fork+"."+format+".json")
	}
	code, _, _ := h.do("GET", "/ui/episodes/"+fork+"/export/yaml", nil)
	assert.Equal(t, http.StatusNotFound, code)
	code, body, _ := h.do("GET", "/ui/episodes/ep_00000000000000000000", nil)
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, body, "unknown episode")

	list := h.get("/ui/episodes?state=evaluated&task=" + taskID)
	assert.Contains(t, list, fork)
	assert.Contains(t, list, parent)
}

// TestPagesKeepTheirPolicy: every page works under its Content Security
// Policy (no inline script or style), with no request to another origin.
func TestPagesKeepTheirPolicy(t *testing.T) {
	h := newHarness(t, "")
	id, _ := h.episode(false)
	inline := regexp.MustCompile(`<script>|<script [^>]*>[^<]|\sstyle=|\son[a-z]+=|https?://`)
	for _, path := range []string{"/ui/", "/ui/tasks/" + taskID, "/ui/episodes", "/ui/episodes/" + id, "/ui/login", "/ui/nope"} {
		code, body, hdr := h.do("GET", path, nil)
		if path == "/ui/nope" {
			assert.Equal(t, http.StatusNotFound, code)
		} else {
			assert.Equal(t, http.StatusOK, code, path)
		}
		assert.Contains(t, hdr.Get("Content-Security-Policy"), "script-src 'self'", path)
		for _, m := range inline.FindAllString(strings.ReplaceAll(body, `xmlns="http://www.w3.org/2000/svg"`, ""), -1) {
			assert.Fail(t, "inline script, style or foreign URL", "%s: %q", path, m)
		}
	}
	for file, ctype := range map[string]string{"style.css": "text/css", "live.js": "text/javascript", "favicon.svg": "image/svg+xml"} {
		code, body, hdr := h.do("GET", "/ui/static/"+file, nil)
		require.Equal(t, http.StatusOK, code, file)
		assert.Contains(t, hdr.Get("Content-Type"), ctype)
		assert.NotEmpty(t, body)
	}
	code, _, _ := h.do("GET", "/ui/static/nope.css", nil)
	assert.Equal(t, http.StatusNotFound, code)
	code, _, hdr := h.do("GET", "/ui", nil)
	assert.Equal(t, http.StatusMovedPermanently, code)
	assert.Equal(t, "/ui/", hdr.Get("Location"))
}
