package curriculum

import "fmt"

// TasksRecorder is a Recorder that stores many tasks in one commit
// (store.Store: one transaction). RegisterAll uses it when the engine's
// recorder has it.
type TasksRecorder interface {
	RecordTasks(tis []TaskInfo) error
}

// RegisterAll registers every task as Register does, but records the new
// ones together: one RecordTasks call when the recorder is a
// TasksRecorder (one commit for 10,000 tasks instead of 10,000), else
// one RecordTask each. Nothing is registered when a task is invalid or
// conflicts with a known one, or when recording fails.
func (e *Engine) RegisterAll(tis []TaskInfo) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var fresh []TaskInfo
	seen := map[string]int{} // index in fresh
	for _, ti := range tis {
		if err := ti.check(); err != nil {
			return err
		}
		old, known := e.tasks[ti.ID]
		if !known {
			if i, dup := seen[ti.ID]; dup {
				old, known = &taskState{info: fresh[i]}, true
			}
		}
		switch {
		case known && !old.info.sameShape(ti):
			return fmt.Errorf("register task %q: %w (T %d, was %d)", ti.ID, ErrTaskConflict, ti.T, old.info.T)
		case !known:
			seen[ti.ID] = len(fresh)
			fresh = append(fresh, ti.normalized())
		}
	}
	if err := e.record(fresh); err != nil {
		return err
	}
	for _, ti := range fresh {
		e.add(ti)
	}
	return nil
}

// record stores new tasks through the recorder, in one call when it can.
func (e *Engine) record(tis []TaskInfo) error {
	rec := e.cfg.recorder
	if rec == nil || len(tis) == 0 {
		return nil
	}
	if br, ok := rec.(TasksRecorder); ok {
		if err := br.RecordTasks(tis); err != nil {
			return fmt.Errorf("register %d tasks: %w", len(tis), err)
		}
		return nil
	}
	for _, ti := range tis {
		if err := rec.RecordTask(ti); err != nil {
			return fmt.Errorf("register task %q: %w", ti.ID, err)
		}
	}
	return nil
}
