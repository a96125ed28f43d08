package curriculum

import (
	"fmt"
	"slices"
)

// Rebase is a reference refresh as the curriculum sees it: the task's
// reference was replaced by one of shape To that shares the old
// reference's first K steps (docs/reference-refresh.md: the
// candidate is ref[0,K) followed by a policy episode from K). Checkpoints
// 0..K are therefore the same states in both references and keep their
// statistics; checkpoints after K are new states and start empty. How each
// strategy's position moves is documented in docs/reference-refresh.md.
type Rebase struct {
	Task string `json:"task"`
	// K is the checkpoint the adopted episode started from.
	K int `json:"k"`
	// Version is the new reference's version: the task's current version
	// plus one (a task is registered at version 1).
	Version int `json:"version"`
	// To is the new reference's shape.
	To TaskInfo `json:"to"`
	// After is used by Restore only: how many of the restored outcomes
	// (of all tasks, in stored order) were applied before this rebase.
	After int `json:"-"`
}

// Rebase replaces a task's reference shape. With a Recorder the rebase is
// durable when Rebase returns nil; on error it was not applied.
func (e *Engine) Rebase(rb Rebase) error { return e.applyRebase(rb, true) }

// applyRebase checks and applies rb, recording it first when record is set
// (Restore replays rebases already stored).
func (e *Engine) applyRebase(rb Rebase, record bool) error {
	ts, err := e.task(rb.Task)
	if err != nil {
		return err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if rb, err = ts.checkRebase(rb); err != nil {
		return err
	}
	if record && e.cfg.recorder != nil {
		if err := e.cfg.recorder.RecordRebase(rb); err != nil {
			return fmt.Errorf("rebase task %q: %w", rb.Task, err)
		}
	}
	ts.rebase(rb)
	return nil
}

// checkRebase validates rb against the task's current shape. Callers hold ts.mu.
func (ts *taskState) checkRebase(rb Rebase) (Rebase, error) {
	if rb.To.ID == "" {
		rb.To.ID = rb.Task
	}
	bad := func(format string, args ...any) (Rebase, error) {
		return rb, fmt.Errorf("rebase task %q to version %d: %w: %s", rb.Task, rb.Version, ErrInvalidRebase, fmt.Sprintf(format, args...))
	}
	if err := rb.To.check(); err != nil {
		return bad("%v", err)
	}
	to := rb.To.normalized()
	switch {
	case rb.To.ID != rb.Task:
		return bad("shape names task %q", rb.To.ID)
	case rb.Version != ts.version+1:
		return bad("the current version is %d", ts.version)
	case rb.K < 0 || rb.K >= ts.info.T || rb.K >= to.T:
		return bad("k = %d outside both references (T = %d, new T = %d)", rb.K, ts.info.T, to.T)
	case !slices.Equal(ts.info.Valid[:rb.K+1], to.Valid[:rb.K+1]):
		return bad("checkpoints 0..%d differ: the prefix must be unchanged", rb.K)
	case !to.Valid[rb.K]:
		return bad("checkpoint %d is not servable", rb.K)
	}
	rb.To = to
	return rb, nil
}

// rebase applies a checked rebase. Callers hold ts.mu.
func (ts *taskState) rebase(rb Rebase) {
	ts.info, ts.version = rb.To, rb.Version
	ts.tr.rebase(rb.K, rb.To.Valid)
	ts.pol.rebase(rb.K)
}

// rebase keeps the statistics of checkpoints 0..k and starts the others
// (new states) empty.
func (t *track) rebase(k int, valid []bool) {
	stats := make([]kstats, len(valid))
	copy(stats, t.stats[:k+1])
	t.valid, t.stats = valid, stats
}
