package reset

import "time"

// WithStageTimes shortens the stage's proof-of-life and settle intervals
// for tests.
func WithStageTimes(recheck, settle time.Duration) Option {
	return func(c *config) error { c.stageTimes = stageTimes{recheck: recheck, settle: settle}; return nil }
}

// StagedIDs lists the ids of the sandboxes staged and ready.
func (r *Resetter) StagedIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, st := range r.stages {
		st.mu.Lock()
		for _, s := range st.ready {
			ids = append(ids, s.sb.ID())
		}
		st.mu.Unlock()
	}
	return ids
}
