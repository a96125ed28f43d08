package dashboard

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// health is GET /healthz.
type health struct {
	Tasks    int     `json:"tasks"`
	Open     int     `json:"open_episodes"`
	Lost     int     `json:"lost_at_start"`
	Uptime   float64 `json:"uptime_s"`
	Strategy string  `json:"strategy"`
	// Capacity is the budget of live sandboxes (--max-sandboxes) and its use.
	Capacity capacity.Stats `json:"capacity"`
}

// record is GET /v1/episodes/{id}: an episode with its actions.
type record struct {
	ID         string           `json:"id"`
	Task       string           `json:"task"`
	K          int              `json:"k"`
	T          int              `json:"t"`
	RefVersion int              `json:"reference_version"`
	Parent     string           `json:"parent"`
	ForkT      int              `json:"fork_t"`
	Purpose    string           `json:"purpose"`
	State      string           `json:"state"`
	Actions    []api.Action     `json:"actions"`
	Created    time.Time        `json:"created"`
	Updated    time.Time        `json:"updated"`
	Outcome    *api.Evaluation  `json:"outcome"`
	Verifier   *verifier.Result `json:"verifier"`
}

func (d *Dashboard) health(ctx context.Context) (health, error) {
	var h health
	return h, d.api.get(ctx, "/healthz", &h)
}

func (d *Dashboard) task(ctx context.Context, id string) (api.TaskSummary, error) {
	var ts api.TaskSummary
	err := d.api.get(ctx, "/v1/tasks/"+esc(id), &ts)
	return ts, notFoundIf(err, "unknown_task")
}

// curriculum is the task's state with its whole history ring.
func (d *Dashboard) curriculum(ctx context.Context, id string) (api.TaskState, error) {
	var doc struct {
		Tasks []api.TaskState `json:"tasks"`
	}
	if err := d.api.get(ctx, "/v1/curriculum?history=256&task="+esc(id), &doc); err != nil {
		return api.TaskState{}, notFoundIf(err, "unknown_task")
	}
	if len(doc.Tasks) != 1 {
		return api.TaskState{}, fmt.Errorf("curriculum of %q: %d states", id, len(doc.Tasks))
	}
	return doc.Tasks[0], nil
}

// episodes lists up to limit episodes, newest first ("" state: all).
func (d *Dashboard) episodes(ctx context.Context, state string, limit int) ([]api.EpisodeSummary, error) {
	var doc struct {
		Episodes []api.EpisodeSummary `json:"episodes"`
	}
	path := fmt.Sprintf("/v1/episodes?limit=%d", limit)
	if state != "" {
		path += "&state=" + esc(state)
	}
	return doc.Episodes, d.api.get(ctx, path, &doc)
}

// countByTask counts the episodes in state by task.
func (d *Dashboard) countByTask(ctx context.Context, state string) (map[string]int, error) {
	eps, err := d.episodes(ctx, state, 10000)
	n := map[string]int{}
	for _, e := range eps {
		n[e.Task]++
	}
	return n, err
}

func (d *Dashboard) record(ctx context.Context, id string) (record, error) {
	var r record
	err := d.api.get(ctx, "/v1/episodes/"+esc(id), &r)
	return r, notFoundIf(err, "unknown_episode", "bad_request")
}

// trajectory is the episode as a native trajectory: the reference prefix
// (recorded observations) and the live actions.
func (d *Dashboard) trajectory(ctx context.Context, id string) (*trajectory.Trajectory, error) {
	var t trajectory.Trajectory
	err := d.api.get(ctx, "/v1/episodes/"+esc(id)+"/trajectory", &t)
	return &t, notFoundIf(err, "unknown_episode", "bad_request")
}

// notFoundIf turns API errors of the given codes into ErrNotFound.
func notFoundIf(err error, codes ...string) error {
	if ae, ok := err.(*APIError); ok {
		for _, c := range codes {
			if ae.Code == c {
				return errNotFound(ae.Message)
			}
		}
	}
	return err
}
