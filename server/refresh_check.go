package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// verdict is a candidate's re-verification result; why and detail say
// why it failed (the prefilter's reason: output, verify_failed, ...).
type verdict struct {
	passed bool
	why    reason.Reason
	detail string
}

// candidateChecker re-verifies a candidate reference.
type candidateChecker interface {
	check(ctx context.Context, tk *task.Task, tr *trajectory.Trajectory) (verdict, error)
}

// prefilterChecker is the prefilter's own check (docs/prefilter.md), so that
// an adopted reference passed exactly what a kept trajectory passes: the
// candidate is replayed end to end and verified in repeats fresh
// sandboxes created on rt, one at a time.
type prefilterChecker struct {
	rt      pool.Creator
	rp      *replayer.Replayer
	repeats int
	log     *slog.Logger
	budget  *capacity.Budget // the server's: candidates' sandboxes count too
}

func (c prefilterChecker) check(ctx context.Context, tk *task.Task, tr *trajectory.Trajectory) (verdict, error) {
	it := &prefilter.Item{Key: prefilter.Key{File: "serve:" + tk.ID, ID: tr.ID}, Traj: tr, Task: tk}
	// serve checked the task's image at start: no extra sandbox for it.
	noImageCheck := prefilter.WithImageCheck(func(context.Context, *task.Task) error { return nil })
	rep, err := prefilter.Run(ctx, c.rt, c.rp, []*prefilter.Item{it}, prefilter.WithRepeats(c.repeats),
		prefilter.WithConcurrency(1), noImageCheck, prefilter.WithLogger(c.log), prefilter.WithBudget(c.budget))
	if err != nil {
		return verdict{}, fmt.Errorf("check candidate %s: %w", tr.ID, err)
	}
	if len(rep.Results) != 1 {
		return verdict{}, fmt.Errorf("check candidate %s: %d results", tr.ID, len(rep.Results))
	}
	res := rep.Results[0]
	switch res.Status {
	case prefilter.StatusKept:
		return verdict{passed: true}, nil
	case prefilter.StatusRejected:
		return verdict{why: res.Reason, detail: res.Detail}, nil
	}
	return verdict{}, fmt.Errorf("check candidate %s: %w", tr.ID, errors.New(res.Detail))
}
