package curriculum

// Purpose says why an episode was served at its checkpoint.
type Purpose string

// Purposes.
const (
	// PurposeRollback: training at the current rollback checkpoint.
	PurposeRollback Purpose = "rollback"
	// PurposeBottleneck: p̂ fell below θ here; training until it recovers to θ_high.
	PurposeBottleneck Purpose = "bottleneck"
	// PurposeProbe: a Search-Learn SEARCH probe at an anchor.
	PurposeProbe Purpose = "probe"
	// PurposeLearn: a Search-Learn LEARN episode at the selected checkpoint.
	PurposeLearn Purpose = "learn"
	// PurposeSolved: the curriculum is finished (k = 0 mastered); episodes
	// start at the original state.
	PurposeSolved Purpose = "solved"
	// PurposeExplicit: the caller chose the checkpoint, not the curriculum.
	PurposeExplicit Purpose = "explicit"
)

// strategyState is one strategy's state machine for one task. Transitions depend
// only on the sequence of observed outcomes, never on next calls, so that
// replaying stored outcomes restores the state exactly.
type strategyState interface {
	// next picks the checkpoint for a group of n episodes.
	next(n int) (int, Purpose)
	// join counts n more episodes of a group next already placed at k
	// (members of a keyed group reset one by one): no new choice.
	join(k, n int)
	// observe updates the state after tr recorded an outcome at k.
	observe(k int, success bool)
	// done reports that k = 0 is mastered.
	done() bool
	// describe fills the strategy-specific part of a Status.
	describe(st *Status)
	// rebase moves the position after tr was rebased at k: checkpoints
	// 0..k are the same states, the others are new.
	rebase(k int)
}

func newStrategyState(tr *track) strategyState {
	switch tr.cfg.strategy {
	case Heuristic:
		return newSequential(tr, 0, tr.T()-1, tr.cfg.deltaMax)
	case Parallel:
		return newParallel(tr)
	case SearchLearn:
		return newSearchLearn(tr)
	}
	return newSequential(tr, 0, tr.T()-1, 1)
}
