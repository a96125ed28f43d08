package intervene

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// scanner scores the rubric at the states a rollout went through, each in
// a scratch sandbox (package evidence). A state reached by the same
// actions is scored once per run: replay is deterministic for them, as
// prefilter checked for the reference. States after an http action are
// always scored anew (a service may answer differently).
type scanner struct {
	src evidence.Source
	tk  *task.Task
	ref *trajectory.Trajectory
	k   int

	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	res  *evidence.Result
	err  error
}

func newScanner(src evidence.Source, tk *task.Task, ref *trajectory.Trajectory, k int) *scanner {
	return &scanner{src: src, tk: tk, ref: ref, k: k, memo: map[string]*memoEntry{}}
}

// EvidenceCost sums what a rollout's evidence cost: scratch sandboxes
// scored (Calls), states found already scored in this run (Memoised),
// steps replayed and milliseconds.
type EvidenceCost struct {
	Calls         int     `json:"calls"`
	Memoised      int     `json:"memoised"`
	StepsReplayed int     `json:"steps_replayed"`
	MS            float64 `json:"ms"`
}

// at returns the evidence after the first t of actions.
func (s *scanner) at(ctx context.Context, actions []trajectory.Step, t int, cost *EvidenceCost) (*evidence.Result, error) {
	key, ok := memoKey(actions[:t])
	if !ok {
		return s.score(ctx, actions[:t], cost)
	}
	s.mu.Lock()
	e := s.memo[key]
	if e == nil {
		e = &memoEntry{}
		s.memo[key] = e
	}
	s.mu.Unlock()
	ran := false
	e.once.Do(func() {
		ran = true
		e.res, e.err = s.score(ctx, actions[:t], cost)
	})
	if e.err != nil {
		s.mu.Lock()
		delete(s.memo, key) // a failure (often the infrastructure's) is not remembered
		s.mu.Unlock()
	}
	if !ran {
		cost.Memoised++
	}
	return e.res, e.err
}

func (s *scanner) score(ctx context.Context, actions []trajectory.Step, cost *EvidenceCost) (*evidence.Result, error) {
	res, err := evidence.Score(ctx, s.src, evidence.State{Task: s.tk, Ref: s.ref, K: s.k, Actions: actions}, false)
	if err != nil {
		return nil, err
	}
	cost.Calls++
	cost.StepsReplayed += res.Cost.StepsReplayed
	cost.MS += res.Cost.TotalMS
	return res, nil
}

// memoKey identifies a state by its actions (not their observations); ok
// is false when an http action makes it unrepeatable.
func memoKey(actions []trajectory.Step) (string, bool) {
	plain := make([]trajectory.Step, len(actions))
	for i, a := range actions {
		if a.Action == trajectory.KindHTTP {
			return "", false
		}
		plain[i] = actionOf(a)
		plain[i].Tokens = 0
	}
	b, err := json.Marshal(plain)
	return string(b), err == nil
}

// actionOf is s as an action only: what a recording adds (observation,
// messages, checkpoint, comparison, volatility) stripped; tokens and the
// intervened flag kept.
func actionOf(s trajectory.Step) trajectory.Step {
	s.Observation, s.Messages, s.Checkpoint, s.Compare, s.Volatile = nil, nil, nil, "", false
	return s
}
