package rollout

import "github.com/rbx-sandbox/rbx/trajectory"

// Record is action a as a rollout's trajectory keeps it: the action with
// what it observed (Observation.Recorded) and whether an intervener chose
// it.
func Record(a trajectory.Step, o trajectory.Observation, intervened bool) trajectory.Step {
	s := actionOf(a)
	s.Observation, s.Intervened = o.Recorded(), intervened
	return s
}

// actionOf is s as an action only: what a recording adds (observation,
// messages, checkpoint, comparison, volatility) stripped; tokens and the
// intervened flag kept.
func actionOf(s trajectory.Step) trajectory.Step {
	s.Observation, s.Messages, s.Checkpoint, s.Compare, s.Volatile = nil, nil, nil, "", false
	return s
}
