package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/rbx-sandbox/rbx/server"
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
	Tasks       []taskRow
	Open, Lost  int // episodes open now; lost (a previous process died with them)
	LostAtStart int
	Rates       rates
}

// taskRow is one task of the overview.
type taskRow struct {
	server.TaskSummary
	Open, Lost          int
	Resets              float64 // per second
	Episodes, Successes int     // observed by the curriculum
}

func (d *Dashboard) overview(ctx context.Context) (*overviewData, error) {
	h, err := d.health(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := d.tasks(ctx)
	if err != nil {
		return nil, err
	}
	open, err := d.countByTask(ctx, server.StateOpen)
	if err != nil {
		return nil, err
	}
	lost, err := d.countByTask(ctx, server.StateLost)
	if err != nil {
		return nil, err
	}
	sc, err := d.metrics(ctx)
	if err != nil {
		return nil, err
	}
	uptime := time.Duration(h.Uptime * float64(time.Second))
	o := &overviewData{page: d.page("rbx serve", Prefix+"/live"), Strategy: h.Strategy, Uptime: uptime,
		Open: h.Open, LostAtStart: h.Lost, Rates: d.rates.observe(time.Now(), sc, uptime)}
	for _, t := range ts {
		row := taskRow{TaskSummary: t, Open: open[t.ID], Lost: lost[t.ID], Resets: o.Rates.TaskResets[t.ID]}
		for _, c := range t.Curriculum.Checkpoints {
			row.Episodes += c.Episodes
			row.Successes += c.Successes
		}
		o.Lost += row.Lost
		o.Tasks = append(o.Tasks, row)
	}
	return o, nil
}

func (d *Dashboard) overviewPage(w http.ResponseWriter, r *http.Request) error {
	o, err := d.overview(r.Context())
	if err != nil {
		return err
	}
	return d.html(w, "overview.html", o)
}

func (d *Dashboard) overviewLive(w http.ResponseWriter, r *http.Request) error {
	o, err := d.overview(r.Context())
	if err != nil {
		return err
	}
	f, err := fragments("overview.html", o, "figures", "tasks")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"fragments": f, "tasks": len(o.Tasks), "open": o.Open,
		"resets_per_s": o.Rates.Resets})
	return nil
}
