package dashboard

import (
	"context"
	"fmt"
	"net/http"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Where a step of an episode's trajectory came from.
const (
	srcReference  = "reference"  // the reference prefix replayed by the reset
	srcInherited  = "inherited"  // a fork's replay of its parent's actions
	srcPolicy     = "policy"     // the policy's own action
	srcIntervened = "intervened" // an intervener's action
)

// stepRow is one step of the episode page.
type stepRow struct {
	I      int
	Source string
	Step   trajectory.Step
	Obs    trajectory.Observation
	Tokens int
}

type episodeData struct {
	page
	Rec     record
	Steps   []stepRow
	Exports []string
}

// exportFormats are the formats of `rbx export`, in its order.
var exportFormats = []string{"native", "atif", "openai"}

func (d *Dashboard) episodeData(ctx context.Context, id string) (*episodeData, error) {
	rec, err := d.record(ctx, id)
	if err != nil {
		return nil, err
	}
	tr, err := d.trajectory(ctx, id)
	if err != nil {
		return nil, err
	}
	ed := &episodeData{page: d.page("episode "+id, ""), Rec: rec, Exports: exportFormats}
	if rec.State == api.StateOpen {
		ed.Live = Prefix + "/episodes/" + esc(id) + "/live"
	}
	for i := 0; i < rec.K && i < len(tr.Steps); i++ {
		row := stepRow{I: i, Source: srcReference, Step: tr.Steps[i], Tokens: tr.Steps[i].Tokens}
		if o := tr.Steps[i].Observation; o != nil {
			row.Obs = *o
		}
		ed.Steps = append(ed.Steps, row)
	}
	for j, a := range rec.Actions {
		src := srcPolicy
		switch {
		case a.Inherited:
			src = srcInherited
		case a.Intervened:
			src = srcIntervened
		}
		ed.Steps = append(ed.Steps, stepRow{I: rec.K + j, Source: src, Step: a.Step, Obs: a.Observation, Tokens: a.Tokens})
	}
	return ed, nil
}

func (d *Dashboard) episodePage(w http.ResponseWriter, r *http.Request) error {
	ed, err := d.episodeData(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return d.html(w, "episode.html", ed)
}

func (d *Dashboard) episodeLive(w http.ResponseWriter, r *http.Request) error {
	ed, err := d.episodeData(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	f, err := fragments("episode.html", ed, "summary", "steps", "verdict")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"fragments": f, "state": ed.Rec.State, "steps": len(ed.Steps)})
	return nil
}

// export downloads the episode as native JSON, ATIF or OpenAI messages
// (the formats of `rbx export`).
func (d *Dashboard) export(w http.ResponseWriter, r *http.Request) error {
	id, format := r.PathValue("id"), r.PathValue("format")
	tr, err := d.trajectory(r.Context(), id)
	if err != nil {
		return err
	}
	var v any
	switch format {
	case "native":
		v = tr
	case "atif":
		v, err = importer.ExportATIF(tr)
	case "openai":
		v, err = importer.ExportOpenAI(tr)
	default:
		return errNotFound(fmt.Sprintf("export format %q: expected native, atif or openai", format))
	}
	if err != nil {
		return fmt.Errorf("export %s as %s: %w", id, format, err)
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s.json"`, id, format))
	writeJSON(w, http.StatusOK, v)
	return nil
}

type episodesData struct {
	page
	State    string
	Task     string
	States   []string
	Episodes []api.EpisodeSummary
}

// episodesPage lists recent episodes, by ?state= and ?task=.
func (d *Dashboard) episodesPage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ed := &episodesData{page: d.page("episodes", ""), State: q.Get("state"), Task: q.Get("task"),
		States: []string{"", api.StateOpen, api.StateEvaluated, api.StateClosed, api.StateExpired,
			api.StateTruncated, api.StateFailed, api.StateLost}}
	eps, err := d.episodes(r.Context(), ed.State, 1000)
	if err != nil {
		return err
	}
	for _, e := range eps {
		if (ed.Task == "" || e.Task == ed.Task) && len(ed.Episodes) < 200 {
			ed.Episodes = append(ed.Episodes, e)
		}
	}
	return d.html(w, "episodes.html", ed)
}
