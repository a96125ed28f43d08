package curriculum

import (
	"fmt"
	"sync"
)

// Recorder durably stores what the engine acknowledges. Observe calls
// RecordOutcome before it applies and acknowledges an outcome.
type Recorder interface {
	RecordTask(ti TaskInfo) error
	RecordOutcome(o Outcome) error
	// RecordRebase stores a reference refresh; Rebase calls it before it
	// applies the new shape.
	RecordRebase(rb Rebase) error
}

// Outcome is one finished episode.
type Outcome struct {
	Task    string `json:"task"`
	K       int    `json:"k"`
	Success bool   `json:"success"`
}

// Engine is the curriculum of many tasks; it is safe for concurrent use.
// Calls for different tasks only contend on a read lock.
type Engine struct {
	cfg   config
	mu    sync.RWMutex
	tasks map[string]*taskState
}

// taskState is one task's track and strategy state under its own lock.
type taskState struct {
	mu      sync.Mutex
	info    TaskInfo
	version int // the reference version, 1 until a Rebase
	tr      *track
	pol     strategyState
}

// New returns an empty engine.
func New(opts ...Option) (*Engine, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.theta > cfg.thetaHigh {
		return nil, fmt.Errorf("%w: theta %v above theta-high %v", ErrInvalidOption, cfg.theta, cfg.thetaHigh)
	}
	if cfg.decision == DecisionPosterior && cfg.minSuccesses > cfg.window {
		return nil, fmt.Errorf("%w: min-successes %d above window %d: the posterior rule would never move on", ErrInvalidOption, cfg.minSuccesses, cfg.window)
	}
	if cfg.decision == DecisionSPRT && (cfg.theta-cfg.delta <= 0 || cfg.theta+cfg.delta >= 1) {
		return nil, fmt.Errorf("%w: sprt: theta %v ± delta %v must stay inside (0, 1)", ErrInvalidOption, cfg.theta, cfg.delta)
	}
	return &Engine{cfg: cfg, tasks: map[string]*taskState{}}, nil
}

// Strategy returns the engine's strategy.
func (e *Engine) Strategy() Strategy { return e.cfg.strategy }

// Decision returns the engine's decision rule.
func (e *Engine) Decision() Decision { return e.cfg.decision }

// Theta returns θ, the success rate below which a checkpoint is a bottleneck.
func (e *Engine) Theta() float64 { return e.cfg.theta }

// Register adds a task. Registering a known task again with the same shape
// is a no-op that keeps its state (a restarted server re-registers what
// Restore loaded); a different shape is ErrTaskConflict.
func (e *Engine) Register(ti TaskInfo) error {
	return e.register(ti, true)
}

func (e *Engine) register(ti TaskInfo, persist bool) error {
	if err := ti.check(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.tasks[ti.ID]; ok {
		if !old.info.sameShape(ti) {
			return fmt.Errorf("register task %q: %w (T %d, was %d)", ti.ID, ErrTaskConflict, ti.T, old.info.T)
		}
		return nil
	}
	ti = ti.normalized()
	if persist && e.cfg.recorder != nil {
		if err := e.cfg.recorder.RecordTask(ti); err != nil {
			return fmt.Errorf("register task %q: %w", ti.ID, err)
		}
	}
	e.add(ti)
	return nil
}

// add starts a normalized task's state; e.mu is held.
func (e *Engine) add(ti TaskInfo) {
	tr := newTrack(&e.cfg, ti)
	if f := e.cfg.onMastered; f != nil {
		tr.onMastered = func(k int) { f(Mastered{Task: ti.ID, K: k}) }
	}
	e.tasks[ti.ID] = &taskState{info: ti, version: 1, tr: tr, pol: newStrategyState(tr)}
}

func (e *Engine) task(id string) (*taskState, error) {
	e.mu.RLock()
	ts, ok := e.tasks[id]
	e.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("task %q: %w", id, ErrUnknownTask)
	}
	return ts, nil
}

// Next returns the checkpoint the task's next episode starts from, and why.
func (e *Engine) Next(task string) (int, Purpose, error) { return e.NextGroup(task, 1) }

// NextGroup returns one checkpoint for a group of n episodes (GRPO-style
// training): all n start from the same k and count as n requests.
func (e *Engine) NextGroup(task string, n int) (int, Purpose, error) {
	if n < 1 {
		return 0, "", fmt.Errorf("task %q: group of %d: %w", task, n, ErrInvalidOption)
	}
	ts, err := e.task(task)
	if err != nil {
		return 0, "", err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	k, p := ts.pol.next(n)
	return k, p, nil
}

// JoinGroup counts n more episodes of a group NextGroup already placed at
// k: members of a keyed group (GRPO's, reset one by one) join the group's
// k and count as its members, without a new choice.
func (e *Engine) JoinGroup(task string, k, n int) error {
	if n < 1 {
		return fmt.Errorf("task %q: join a group with %d: %w", task, n, ErrInvalidOption)
	}
	ts, err := e.task(task)
	if err != nil {
		return err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.pol.join(k, n)
	return nil
}

// Observe records the outcome of an episode started at k. With a Recorder
// the outcome is durable when Observe returns nil; on error it was not applied.
func (e *Engine) Observe(task string, k int, success bool) error {
	ts, err := e.task(task)
	if err != nil {
		return err
	}
	if k < 0 || k >= ts.info.T || !ts.info.Valid[k] {
		return fmt.Errorf("task %q: k = %d (T = %d): %w", task, k, ts.info.T, ErrInvalidCheckpoint)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	// Under the task lock, so that the stored order is the applied order.
	if e.cfg.recorder != nil {
		if err := e.cfg.recorder.RecordOutcome(Outcome{Task: task, K: k, Success: success}); err != nil {
			return fmt.Errorf("observe task %q k=%d: %w", task, k, err)
		}
	}
	ts.tr.record(k, success)
	ts.pol.observe(k, success)
	return nil
}

// Restore registers tasks and applies stored outcomes and rebases, in
// order (a rebase goes before outcome number rb.After), without recording
// them again: the state afterwards is the state before a restart.
func (e *Engine) Restore(tasks []TaskInfo, outcomes []Outcome, rebases ...Rebase) error {
	for _, ti := range tasks {
		if err := e.register(ti, false); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	next := 0 // the next rebase to apply
	rebaseUpTo := func(n int) error {
		for ; next < len(rebases) && rebases[next].After <= n; next++ {
			if err := e.restoreRebase(rebases[next]); err != nil {
				return fmt.Errorf("restore rebase %d: %w", next, err)
			}
		}
		return nil
	}
	for i, o := range outcomes {
		if err := rebaseUpTo(i); err != nil {
			return err
		}
		ts, err := e.task(o.Task)
		if err != nil {
			return fmt.Errorf("restore outcome %d: %w", i, err)
		}
		if o.K < 0 || o.K >= ts.info.T || !ts.info.Valid[o.K] {
			return fmt.Errorf("restore outcome %d: task %q k = %d: %w", i, o.Task, o.K, ErrInvalidCheckpoint)
		}
		ts.mu.Lock()
		hook := ts.tr.onMastered
		ts.tr.onMastered = nil // replayed decisions were heard before the restart
		ts.tr.record(o.K, o.Success)
		ts.pol.observe(o.K, o.Success)
		ts.tr.onMastered = hook
		ts.mu.Unlock()
	}
	return rebaseUpTo(len(outcomes))
}

func (e *Engine) restoreRebase(rb Rebase) error { return e.applyRebase(rb, false) }
