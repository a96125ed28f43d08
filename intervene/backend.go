package intervene

import (
	"context"
	"errors"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// backend is where the loop's episodes run: in-process on a resetter
// (local) or on an rbx serve (served).
type backend interface {
	// start opens an episode at the run's checkpoint.
	start(ctx context.Context) (session, error)
	// fork opens an episode continuing parent after its first t actions
	// (acts, the parent's actions), and returns those as this episode
	// observed them.
	fork(ctx context.Context, parent session, acts []trajectory.Step, t int) (session, []trajectory.Step, error)
	// evidence scores the rubric at the state after parent's first t
	// actions, without touching any live sandbox.
	evidence(ctx context.Context, parent session, acts []trajectory.Step, t int, cost *EvidenceCost) (*evidence.Result, error)
}

// session is one episode of a backend.
type session interface {
	// do carries out one action; an action that fails as an action is an
	// observation, errors are the infrastructure's (and errTurnOver).
	do(ctx context.Context, a trajectory.Step, intervened bool) (trajectory.Observation, error)
	// verify runs the task's verifier; the episode ends.
	verify(ctx context.Context) (bool, error)
	// release gives the sandbox back (idempotent).
	release()
}

// errTurnOver ends an agent's turn without failing it: the episode ran out
// of its steps or time (the verifier judges what was reached).
var errTurnOver = errors.New("the episode is over")
