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

// TaskSummary is one task of the listing.
type TaskSummary struct {
	ID        string `json:"id"`
	T         int    `json:"t"`
	Image     string `json:"image"`
	Reference string `json:"reference"`
	// ReferenceVersion is the version of the reference resets use.
	ReferenceVersion int               `json:"reference_version"`
	Instruction      string            `json:"instruction"`
	Workdir          string            `json:"workdir"`     // the sandbox's working directory
	Checkpoints      []int             `json:"checkpoints"` // the servable k
	Curriculum       curriculum.Status `json:"curriculum"`
	Pool             *pool.Stats       `json:"pool,omitempty"`
}

// TaskState is a task's curriculum state with its recent history.
type TaskState struct {
	curriculum.Status
	History []HistoryEvent `json:"history"`
}

func (s *Server) healthz(*http.Request) (any, *APIError) {
	return map[string]any{"status": "ok", "tasks": len(s.cat), "open_episodes": s.openCount(),
		"lost_at_start": s.lost, "uptime_s": time.Since(s.started).Seconds(), "strategy": s.eng.Strategy()}, nil
}

func (s *Server) summary(e *Entry) TaskSummary {
	st, _ := s.eng.Status(e.Task.ID)
	spec := provision.Spec(e.Task)
	ts := TaskSummary{ID: e.Task.ID, T: e.Ref.Len(), Image: spec.Image, Workdir: spec.Workdir, Reference: e.Ref.ID, ReferenceVersion: e.version,
		Instruction: e.Task.Instruction, Curriculum: st, Checkpoints: []int{}}
	for k := 0; k < e.Ref.Len(); k++ {
		if e.Ref.ValidCheckpoint(k) {
			ts.Checkpoints = append(ts.Checkpoints, k)
		}
	}
	key := reset.Key(e.Task)
	for _, p := range s.rs.Stats() {
		if p.Key == key {
			ts.Pool = &p
		}
	}
	return ts
}

func (s *Server) listTasks(*http.Request) (any, *APIError) {
	out := []TaskSummary{}
	for _, id := range s.cat.ids() {
		out = append(out, s.summary(s.refs.current(id)))
	}
	return map[string]any{"tasks": out}, nil
}

func (s *Server) getTask(r *http.Request) (any, *APIError) {
	e, aerr := s.entry(r.PathValue("task"))
	if aerr != nil {
		return nil, aerr
	}
	return s.summary(e), nil
}

// curriculumState lists every task's (or ?task=ID's) curriculum: k, phase,
// p̂ per checkpoint, stuck flags, and the latest ?history=N outcomes
// (default 64, at most the ring's 256: the dashboard draws them all).
func (s *Server) curriculumState(r *http.Request) (any, *APIError) {
	n := 64
	if v := r.URL.Query().Get("history"); v != "" {
		h, err := strconv.Atoi(v)
		if err != nil || h < 0 || h > historyMax {
			return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "history %q: expected 0 to %d", clip(v, 16), historyMax)
		}
		n = h
	}
	ids := s.cat.ids()
	if t := r.URL.Query().Get("task"); t != "" {
		e, aerr := s.entry(t)
		if aerr != nil {
			return nil, aerr
		}
		ids = []string{e.Task.ID}
	}
	out := []TaskState{}
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
	return map[string]any{"strategy": s.eng.Strategy(), "tasks": out}, nil
}
