package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/server/api"
)

// overviewLimit is how many task rows the overview shows per page.
const overviewLimit = 50

// listing is the overview's filter and page: the query of /ui/ (phase,
// q, cursor) passed on to GET /v1/tasks.
type listing struct {
	Phase, Q, Cursor string
}

func listingOf(r *http.Request) listing {
	v := r.URL.Query()
	return listing{Phase: v.Get("phase"), Q: v.Get("q"), Cursor: v.Get("cursor")}
}

// query is the listing as a query string ("" when empty), with the
// cursor replaced.
func (l listing) query(cursor string) string {
	v := url.Values{}
	for k, s := range map[string]string{"phase": l.Phase, "q": l.Q, "cursor": cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// withPhase is the overview's link to the same search in another phase
// ("" for every phase), from the first page.
func (l listing) withPhase(phase string) string {
	l.Phase = phase
	return Prefix + "/" + l.query("")
}

// tasksPage is one page of GET /v1/tasks.
type tasksPage struct {
	Tasks []api.TaskSummary `json:"tasks"`
	api.Page
}

func (d *Dashboard) listTasks(ctx context.Context, l listing) (tasksPage, error) {
	q := l.query(l.Cursor)
	if q == "" {
		q = "?"
	} else {
		q += "&"
	}
	var p tasksPage
	return p, d.api.get(ctx, "/v1/tasks"+q+"limit="+strconv.Itoa(overviewLimit), &p)
}

// phaseCount is one tab of the overview's summary: a phase, its tasks
// (among those the search matches) and the link that filters by it.
type phaseCount struct {
	Phase  string
	N      int
	Href   string
	Active bool
}

func phaseCounts(l listing, counts map[string]int) []phaseCount {
	all := 0
	for _, n := range counts {
		all += n
	}
	out := []phaseCount{{Phase: "all", N: all, Href: l.withPhase(""), Active: l.Phase == ""}}
	for _, ph := range curriculum.Phases {
		out = append(out, phaseCount{Phase: ph, N: counts[ph], Href: l.withPhase(ph), Active: l.Phase == ph})
	}
	for ph, n := range counts { // a phase a newer curriculum added
		if !slices.Contains(curriculum.Phases, ph) {
			out = append(out, phaseCount{Phase: ph, N: n, Href: l.withPhase(ph), Active: l.Phase == ph})
		}
	}
	return out
}
