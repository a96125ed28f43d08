package server

import (
	"net/http"
	"strconv"
)

func (s *Server) listReferences(r *http.Request) (any, *APIError) {
	e, aerr := s.entry(r.PathValue("task"))
	if aerr != nil {
		return nil, aerr
	}
	out := ReferencesResponse{Task: e.Task.ID, Current: e.version, Refresh: s.rf != nil,
		Versions: s.refs.list(e.Task.ID), Candidates: []CandidateEvent{}}
	if s.rf != nil {
		out.Candidates = s.rf.history(e.Task.ID)
	}
	return out, nil
}

// getReference returns one version of a task's reference as a native trajectory.
func (s *Server) getReference(r *http.Request) (any, *APIError) {
	e, aerr := s.entry(r.PathValue("task"))
	if aerr != nil {
		return nil, aerr
	}
	raw := r.PathValue("version")
	v, err := strconv.Atoi(raw)
	if err != nil || v < 1 {
		return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "version %q: expected an integer ≥ 1", clip(raw, 16))
	}
	ve := s.refs.at(e.Task.ID, v)
	if ve == nil {
		return nil, apiErr(http.StatusNotFound, CodeUnknownVersion, "task %s has no reference version %d (current: %d)", e.Task.ID, v, e.version).With("current", e.version)
	}
	return ve.Ref, nil
}

// entryOf is the reference version an episode was reset on.
func (s *Server) entryOf(rec record) (*Entry, *APIError) {
	if _, aerr := s.entry(rec.Task); aerr != nil {
		return nil, aerr
	}
	v := max(rec.RefVersion, 1)
	e := s.refs.at(rec.Task, v)
	if e == nil {
		return nil, apiErr(http.StatusConflict, CodeUnknownVersion, "episode %s was reset on version %d of task %s's reference, which this server does not hold", rec.ID, v, rec.Task)
	}
	return e, nil
}
