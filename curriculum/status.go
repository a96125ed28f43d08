package curriculum

import "sort"

// Status is a snapshot of one task's curriculum.
type Status struct {
	Task     string   `json:"task"`
	Strategy Strategy `json:"strategy"`
	T        int      `json:"t"`
	// Version is the reference version the curriculum follows (1 until a
	// reference refresh).
	Version int `json:"reference_version"`
	// K is the checkpoint being trained (the first unfinished segment's for Parallel).
	K int `json:"k"`
	// Phase is rollback, bottleneck, search, learn or solved.
	Phase string `json:"phase"`
	// Solved reports that k = 0 is mastered.
	Solved bool `json:"solved"`
	// Segments are Parallel's current checkpoints (-1 when finished).
	Segments []int `json:"segments,omitempty"`
	// Domain and Anchors are Search-Learn's.
	Domain  *[2]int `json:"domain,omitempty"`
	Anchors []int   `json:"anchors,omitempty"`
	// Checkpoints has the statistics of every checkpoint that saw an episode.
	Checkpoints []CheckpointStats `json:"checkpoints"`
	// Stuck lists the flagged checkpoints.
	Stuck []int `json:"stuck,omitempty"`
	// Theta, ThetaHigh and Window are the engine's θ, θ_high and W: what
	// Rate is measured over and judged against (a chart marks them).
	Theta     float64 `json:"theta"`
	ThetaHigh float64 `json:"theta_high"`
	Window    int     `json:"window"`
}

// CheckpointStats are one checkpoint's counters.
type CheckpointStats struct {
	K         int     `json:"k"`
	Episodes  int     `json:"episodes"`
	Successes int     `json:"successes"`
	Rate      float64 `json:"rate"` // p̂ over the window
	FailRun   int     `json:"fail_run"`
	Stuck     bool    `json:"stuck,omitempty"`
}

// Status returns a snapshot of a task's curriculum.
func (e *Engine) Status(task string) (Status, error) {
	ts, err := e.task(task)
	if err != nil {
		return Status{}, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st := Status{Task: task, Strategy: e.cfg.strategy, T: ts.info.T, Version: ts.version, Solved: ts.pol.done(),
		Theta: e.cfg.theta, ThetaHigh: e.cfg.thetaHigh, Window: e.cfg.window}
	ts.pol.describe(&st)
	if st.Solved {
		st.Phase, st.K = "solved", 0
	}
	for k, s := range ts.tr.stats {
		if s.n == 0 {
			continue
		}
		rate, _ := ts.tr.rate(k)
		st.Checkpoints = append(st.Checkpoints, CheckpointStats{K: k, Episodes: s.n, Successes: s.succ, Rate: rate, FailRun: s.failRun, Stuck: s.flagged})
		if s.flagged {
			st.Stuck = append(st.Stuck, k)
		}
	}
	return st, nil
}

// Stuck returns the task's checkpoints where p̂ has been 0 for the
// configured number of consecutive episodes, ascending.
func (e *Engine) Stuck(task string) ([]int, error) {
	st, err := e.Status(task)
	return st.Stuck, err
}

// Tasks returns the registered task ids, sorted.
func (e *Engine) Tasks() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ids := make([]string, 0, len(e.tasks))
	for id := range e.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
