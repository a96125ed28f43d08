package dashboard

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/server/api"
)

// page is what the layout needs.
type page struct {
	Title string
	// Live is the page's polling route ("" for a static page); Every its
	// period in milliseconds.
	Live  string
	Every int64
	// Logout shows the log-out button (a token protects the dashboard).
	Logout bool
}

func (d *Dashboard) page(title, live string) page {
	return page{Title: title, Live: live, Every: d.cfg.every.Milliseconds(), Logout: d.cfg.token != ""}
}

type overviewData struct {
	page
	Strategy    string
	Uptime      time.Duration
	Served      int // every task the server serves
	Tasks       []taskRow
	Listing     listing
	Page        api.Page     // the listing's total, next cursor and counts per phase
	Phases      []phaseCount // the summary on top
	Next, First string       // the next page's and the first page's links ("" when none)
	Open, Lost  int          // episodes open now; lost (a previous process died with them)
	LostAtStart int
	Rates       rates
	Capacity    capacity.Stats // the budget of live sandboxes and its use
}

// taskRow is one task of the overview.
type taskRow struct {
	api.TaskSummary
	Open, Lost          int
	Resets              float64 // per second (NaN: the metrics are not per task)
	Episodes, Successes int     // observed by the curriculum
}

// overview gathers one page of the overview: l's page of tasks (at most
// overviewLimit rows whatever the number of tasks), their counters, and
// the server's figures.
func (d *Dashboard) overview(ctx context.Context, l listing) (*overviewData, error) {
	h, err := d.health(ctx)
	if err != nil {
		return nil, err
	}
	tp, err := d.listTasks(ctx, l)
	if err != nil {
		return nil, err
	}
	open, err := d.countByTask(ctx, api.StateOpen)
	if err != nil {
		return nil, err
	}
	lost, err := d.countByTask(ctx, api.StateLost)
	if err != nil {
		return nil, err
	}
	sc, err := d.metrics(ctx)
	if err != nil {
		return nil, err
	}
	uptime := time.Duration(h.Uptime * float64(time.Second))
	o := &overviewData{page: d.page("rbx serve", Prefix+"/live"+l.query(l.Cursor)), Strategy: h.Strategy, Uptime: uptime,
		Served: h.Tasks, Listing: l, Page: tp.Page, Phases: phaseCounts(l, tp.Phases),
		Open: h.Open, LostAtStart: h.Lost, Rates: d.rates.observe(time.Now(), sc, uptime), Capacity: h.Capacity}
	if tp.NextCursor != "" {
		o.Next = Prefix + "/" + l.query(tp.NextCursor)
	}
	if l.Cursor != "" {
		o.First = Prefix + "/" + l.query("")
	}
	for _, n := range lost {
		o.Lost += n
	}
	for _, t := range tp.Tasks {
		o.Tasks = append(o.Tasks, d.row(t, open, lost, o.Rates))
	}
	return o, nil
}

func (d *Dashboard) row(t api.TaskSummary, open, lost map[string]int, r rates) taskRow {
	row := taskRow{TaskSummary: t, Open: open[t.ID], Lost: lost[t.ID], Resets: r.TaskResets[t.ID]}
	if _, ok := r.TaskResets[t.ID]; !ok {
		if _, agg := r.TaskResets[api.AllTasks]; agg {
			row.Resets = math.NaN()
		}
	}
	for _, c := range t.Curriculum.Checkpoints {
		row.Episodes += c.Episodes
		row.Successes += c.Successes
	}
	return row
}

func (d *Dashboard) overviewPage(w http.ResponseWriter, r *http.Request) error {
	o, err := d.overview(r.Context(), listingOf(r))
	if err != nil {
		return err
	}
	return d.html(w, "overview.html", o)
}

func (d *Dashboard) overviewLive(w http.ResponseWriter, r *http.Request) error {
	o, err := d.overview(r.Context(), listingOf(r))
	if err != nil {
		return err
	}
	f, err := fragments("overview.html", o, "figures", "phases", "tasks")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"fragments": f, "tasks": len(o.Tasks), "total": o.Page.Total, "open": o.Open,
		"resets_per_s": o.Rates.Resets})
	return nil
}
