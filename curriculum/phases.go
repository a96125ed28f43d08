package curriculum

// Phases are the values of Status.Phase, in the order a task goes
// through them: Sequential and Heuristic roll back (rollback, then
// bottleneck at a checkpoint that stays below θ), Parallel rolls back,
// Search-Learn searches then learns, and every strategy ends solved.
var Phases = []string{"rollback", "bottleneck", "search", "learn", "solved"}

// Phase returns the task's Status.Phase without building the rest of
// its status: listings filter thousands of tasks by it.
func (e *Engine) Phase(task string) (string, error) {
	ts, err := e.task(task)
	if err != nil {
		return "", err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.pol.done() {
		return "solved", nil
	}
	var st Status
	ts.pol.describe(&st)
	return st.Phase, nil
}
