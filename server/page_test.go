package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/server"
)

// manyHarness serves n generated tasks (pools of 0: nothing is created).
func manyHarness(t *testing.T, n int, opts ...server.Option) *harness {
	t.Helper()
	srv, _ := startFrom(t, corpusDir(t, n), statePath(t), opts...)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &harness{t: t, srv: srv, url: hs.URL}
}

// listPage is the paging part of a listing, with the ids it holds.
type listPage struct {
	Tasks []struct {
		ID   string `json:"id"`
		Task string `json:"task"`
	} `json:"tasks"`
	Total      int            `json:"total"`
	NextCursor string         `json:"next_cursor"`
	Phases     map[string]int `json:"phases"`
}

func (p listPage) ids() []string {
	var out []string
	for _, tk := range p.Tasks {
		out = append(out, tk.ID+tk.Task) // /v1/tasks has id, /v1/curriculum task
	}
	return out
}

func TestListingsPage(t *testing.T) {
	const n = 250
	h := manyHarness(t, n)
	for _, route := range []string{"/v1/tasks", "/v1/curriculum"} {
		t.Run(route, func(t *testing.T) {
			var all []string
			pages, cursor := 0, ""
			for {
				var p listPage
				code, raw := h.call("GET", route+"?limit=100&cursor="+url.QueryEscape(cursor), nil, &p)
				require.Equal(t, 200, code, "%s", raw)
				assert.Equal(t, n, p.Total)
				all, pages = append(all, p.ids()...), pages+1
				if cursor = p.NextCursor; cursor == "" {
					break
				}
				require.Len(t, p.Tasks, 100)
			}
			assert.Equal(t, 3, pages)
			require.Len(t, all, n)
			for i, id := range all {
				require.Equal(t, corpustest.ID(i), id)
			}
		})
	}
}

func TestListingsFilter(t *testing.T) {
	h := manyHarness(t, 250)
	tests := []struct {
		query string
		want  []string // the first ids
		total int
	}{
		{query: "", want: []string{corpustest.ID(0)}, total: 250},
		{query: "after=" + corpustest.ID(100), want: []string{corpustest.ID(101)}, total: 250},
		{query: "q=0012", want: []string{corpustest.ID(12), corpustest.ID(120)}, total: 11},
		{query: "q=0012&limit=2", want: []string{corpustest.ID(12), corpustest.ID(120)}, total: 11},
		{query: "phase=solved", total: 0},
		{query: "phase=search&q=gen-0000", want: []string{corpustest.ID(0)}, total: 10},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			var p listPage
			code, raw := h.call("GET", "/v1/tasks?"+tc.query, nil, &p)
			require.Equal(t, 200, code, "%s", raw)
			assert.Equal(t, tc.total, p.Total)
			got := p.ids()
			assert.LessOrEqual(t, len(got), 100)
			if len(got) > len(tc.want) {
				got = got[:len(tc.want)]
			}
			assert.Equal(t, tc.want, got)
			sum := 0
			for _, c := range p.Phases {
				sum += c
			}
			assert.GreaterOrEqual(t, sum, tc.total, "phases count every task matching q")
		})
	}
}

func TestListingsRejectBadParameters(t *testing.T) {
	h := manyHarness(t, 3)
	tests := []struct{ query, param string }{
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=x", "limit"},
		{"phase=mastered", "phase"},
		{"cursor=%21%21", "cursor"},
		{"cursor=Z2VuLTAwMDAx&after=gen-00001", "cursor"},
		{"after=..%2Fx", "after"},
		{"history=300", "history"},
	}
	for _, route := range []string{"/v1/tasks", "/v1/curriculum"} {
		for _, tc := range tests {
			if tc.param == "history" && route == "/v1/tasks" {
				continue
			}
			t.Run(route+"?"+tc.query, func(t *testing.T) {
				code, raw := h.call("GET", route+"?"+tc.query, nil, nil)
				require.Equal(t, 400, code, "%s", raw)
				var e struct {
					Error struct {
						Code      string   `json:"code"`
						Parameter string   `json:"parameter"`
						Allowed   []string `json:"allowed"`
					} `json:"error"`
				}
				require.NoError(t, json.Unmarshal(raw, &e))
				assert.Equal(t, "bad_request", e.Error.Code)
				assert.Equal(t, tc.param, e.Error.Parameter)
				if tc.param == "phase" {
					assert.Equal(t, curriculum.Phases, e.Error.Allowed)
				}
			})
		}
	}
}

// TestOpenAPIPhasesAreTheCurriculums: the phase parameter documents the
// values the curriculum has.
func TestOpenAPIPhasesAreTheCurriculums(t *testing.T) {
	h := manyHarness(t, 1)
	var doc struct {
		Components struct {
			Parameters map[string]struct {
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	code, _ := h.call("GET", "/v1/openapi.json", nil, &doc)
	require.Equal(t, 200, code)
	assert.Equal(t, curriculum.Phases, doc.Components.Parameters["Phase"].Schema.Enum, fmt.Sprint(doc.Components.Parameters))
}

// TestListingCarriesEachTasksPool: a listing's tasks carry the counters
// of their sandbox class's warm set (indexed once per request), once a
// reset made it; before any reset there is none.
func TestListingCarriesEachTasksPool(t *testing.T) {
	h := manyHarness(t, 30)
	var p struct {
		Tasks []server.TaskSummary `json:"tasks"`
	}
	code, raw := h.call("GET", "/v1/tasks?limit=5&after="+corpustest.ID(20), nil, &p)
	require.Equal(t, 200, code, "%s", raw)
	require.Len(t, p.Tasks, 5)
	for _, ts := range p.Tasks {
		assert.Nil(t, ts.Pool, "%s: no sandbox class before the first reset", ts.ID)
	}
	ep := h.reset(corpustest.ID(0), 0)
	h.call("POST", "/v1/episodes/"+ep.ID+"/close", nil, nil)
	code, raw = h.call("GET", "/v1/tasks?limit=5&after="+corpustest.ID(20), nil, &p)
	require.Equal(t, 200, code, "%s", raw)
	for _, ts := range p.Tasks {
		require.NotNil(t, ts.Pool, ts.ID)
		assert.True(t, strings.HasPrefix(ts.Pool.Key, "busybox-"), "%s: the class pool %s", ts.ID, ts.Pool.Key)
	}
}
