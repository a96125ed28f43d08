package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/reset"
)

func (s *Server) healthz(*http.Request) (any, *APIError) {
	h := map[string]any{"status": "ok", "tasks": len(s.refs.taskIDs()), "open_episodes": s.openCount(),
		"lost_at_start": s.lost, "uptime_s": time.Since(s.started).Seconds(), "strategy": s.eng.Strategy(),
		"capacity": s.rs.Budget().Stats()}
	for k, v := range s.cfg.isolation {
		h[k] = v
	}
	return h, nil
}

// poolStats indexes the pools' counters by pool key, once per request:
// a listing must not scan every pool for each task.
func (s *Server) poolStats() map[string]pool.Stats {
	out := map[string]pool.Stats{}
	for _, p := range s.rs.Stats() {
		out[p.Key] = p
	}
	return out
}

func (s *Server) summary(e *Entry, pools map[string]pool.Stats) TaskSummary {
	st, _ := s.eng.Status(e.Task.ID)
	spec := provision.Spec(e.Task)
	ts := TaskSummary{ID: e.Task.ID, T: e.Ref.Len(), Image: spec.Image, Workdir: spec.Workdir, Reference: e.Ref.ID, ReferenceVersion: e.version,
		Instruction: e.Task.Instruction, Curriculum: st, Checkpoints: []int{}}
	for k := 0; k < e.Ref.Len(); k++ {
		if e.Ref.ValidCheckpoint(k) {
			ts.Checkpoints = append(ts.Checkpoints, k)
		}
	}
	if p, ok := pools[reset.ClassKey(e.Task)]; ok { // the task's class's warm set
		ts.Pool = &p
	}
	return ts
}

// phaseOf is a task's curriculum phase, for filtering listings.
func (s *Server) phaseOf(id string) string {
	ph, _ := s.eng.Phase(id)
	return ph
}

// listTasks answers one page of the task listing (see parsePage).
func (s *Server) listTasks(r *http.Request) (any, *APIError) {
	p, aerr := parsePage(r)
	if aerr != nil {
		return nil, aerr
	}
	ids, pg := p.apply(s.refs.taskIDs(), s.phaseOf)
	pools := s.poolStats()
	out := make([]TaskSummary, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.summary(s.refs.current(id), pools))
	}
	return struct {
		Tasks []TaskSummary `json:"tasks"`
		Page
	}{out, pg}, nil
}

func (s *Server) getTask(r *http.Request) (any, *APIError) {
	e, aerr := s.entry(r.PathValue("task"))
	if aerr != nil {
		return nil, aerr
	}
	return s.summary(e, s.poolStats()), nil
}

// curriculumState lists one page of the tasks' (or ?task=ID's) curriculum:
// k, phase, p̂ per checkpoint, stuck flags, and the latest ?history=N
// outcomes (default 64, at most the ring's 256: the dashboard draws them
// all); paged and filtered as GET /v1/tasks.
func (s *Server) curriculumState(r *http.Request) (any, *APIError) {
	n := 64
	if v := r.URL.Query().Get("history"); v != "" {
		h, err := strconv.Atoi(v)
		if err != nil || h < 0 || h > historyMax {
			return nil, badParam("history", "%q: expected 0 to %d", clip(v, 16), historyMax)
		}
		n = h
	}
	p, aerr := parsePage(r)
	if aerr != nil {
		return nil, aerr
	}
	var ids []string
	var pg Page
	if t := r.URL.Query().Get("task"); t != "" {
		e, aerr := s.entry(t)
		if aerr != nil {
			return nil, aerr
		}
		ids, pg = []string{e.Task.ID}, Page{Total: 1, Phases: map[string]int{s.phaseOf(e.Task.ID): 1}}
	} else {
		ids, pg = p.apply(s.refs.taskIDs(), s.phaseOf)
	}
	out := make([]TaskState, 0, len(ids))
	for _, id := range ids {
		st, err := s.eng.Status(id)
		if err != nil {
			return nil, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
		if st.Checkpoints == nil {
			st.Checkpoints = []curriculum.CheckpointStats{}
		}
		out = append(out, TaskState{Status: st, History: s.hist.last(id, n)})
	}
	return struct {
		Strategy curriculum.Strategy `json:"strategy"`
		Tasks    []TaskState         `json:"tasks"`
		Page
	}{s.eng.Strategy(), out, pg}, nil
}
