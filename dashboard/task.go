package dashboard

import (
	"context"
	"net/http"
	"strings"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/server/api"
)

type taskData struct {
	page
	Task  api.TaskSummary
	State api.TaskState
	// Success, Served and Checkpoints are the three charts (SVG).
	Success, Served, Checkpoints string
	Bottleneck                   int
	HasBottleneck                bool
	Rollbacks                    []move
	Stuck                        []curriculum.CheckpointStats
	Episodes                     []api.EpisodeSummary
}

// taskFragments are the live parts of a task page, by element id.
var taskFragments = []string{"status", "chart-success", "chart-served", "chart-checkpoints", "rollbacks", "stuck", "episodes"}

func (d *Dashboard) taskData(ctx context.Context, id string) (*taskData, error) {
	ts, err := d.task(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := d.curriculum(ctx, id)
	if err != nil {
		return nil, err
	}
	eps, err := d.episodes(ctx, "", 1000)
	if err != nil {
		return nil, err
	}
	td := &taskData{page: d.page(id, Prefix+"/tasks/"+esc(id)+"/live"), Task: ts, State: st,
		Success: successChart(st), Served: servedChart(st), Checkpoints: checkpointChart(st),
		Rollbacks: trainingOf(st).rollbacks()}
	if len(td.Rollbacks) > 50 { // the latest; the served chart shows every move
		td.Rollbacks = td.Rollbacks[:50]
	}
	td.Bottleneck, td.HasBottleneck = bottleneck(st)
	for _, c := range st.Checkpoints {
		if c.Stuck {
			td.Stuck = append(td.Stuck, c)
		}
	}
	for _, e := range eps {
		if e.Task == id && len(td.Episodes) < 20 {
			td.Episodes = append(td.Episodes, e)
		}
	}
	return td, nil
}

func (d *Dashboard) taskPage(w http.ResponseWriter, r *http.Request) error {
	td, err := d.taskData(r.Context(), r.PathValue("task"))
	if err != nil {
		return err
	}
	return d.html(w, "task.html", td)
}

func (d *Dashboard) taskLive(w http.ResponseWriter, r *http.Request) error {
	td, err := d.taskData(r.Context(), r.PathValue("task"))
	if err != nil {
		return err
	}
	f, err := fragments("task.html", td, taskFragments...)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"fragments": f, "task": td.Task.ID, "k": td.State.K, "phase": td.State.Phase,
		"solved": td.State.Solved, "points": len(td.State.History), "checkpoints": len(td.State.Checkpoints)})
	return nil
}

// chartFile serves one chart as a standalone SVG document (NAME.svg).
func (d *Dashboard) chartFile(w http.ResponseWriter, r *http.Request) error {
	name, ok := strings.CutSuffix(r.PathValue("chart"), ".svg")
	draw := charts[name]
	if !ok || draw == nil {
		return errNotFound("no chart " + r.PathValue("chart") + ": expected success.svg, served.svg or checkpoints.svg")
	}
	st, err := d.curriculum(r.Context(), r.PathValue("task"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	_, err = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + draw(st)))
	return err
}
