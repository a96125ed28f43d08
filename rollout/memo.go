package rollout

import (
	"encoding/json"
	"sync"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// memo scores each state once: a state reached by the same actions from
// the same checkpoint is the same, since replay is deterministic for them
// (as prefilter checked for the reference). States after an http action
// are always scored anew (a service may answer differently). Its zero
// value is ready.
type memo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	res  *evidence.Result
	err  error
}

// score returns the evidence at st, from score the first time; memoised
// reports that it was not this call that scored it.
func (m *memo) score(st evidence.State, score func() (*evidence.Result, error)) (res *evidence.Result, memoised bool, err error) {
	key, ok := memoKey(st)
	if !ok {
		res, err = score()
		return res, false, err
	}
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry{}
	}
	e := m.entries[key]
	if e == nil {
		e = &memoEntry{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	ran := false
	e.once.Do(func() {
		ran = true
		e.res, e.err = score()
	})
	if e.err != nil {
		m.mu.Lock()
		delete(m.entries, key) // a failure (often the infrastructure's) is not remembered
		m.mu.Unlock()
	}
	return e.res, !ran, e.err
}

// memoKey identifies a state by its task, reference, checkpoint and
// actions (not their observations or tokens); ok is false when an http
// action makes it unrepeatable.
func memoKey(st evidence.State) (string, bool) {
	plain := make([]trajectory.Step, len(st.Actions))
	for i, a := range st.Actions {
		if a.Action == trajectory.KindHTTP {
			return "", false
		}
		plain[i] = actionOf(a)
		plain[i].Tokens = 0
	}
	b, err := json.Marshal(struct {
		Task, Ref string
		K         int
		Actions   []trajectory.Step
	}{st.Task.ID, st.Ref.ID, st.K, plain})
	return string(b), err == nil
}
