package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// episodeStack is the wiring every command that runs episodes of one task
// builds the same way (probe, intervene): the replayer with the task's
// services, the runtime (orphans of dead rbx processes reaped, the task's
// image made present), the command's capacity budget and a resetter
// whose warm pool is as large as the command's concurrency.
type episodeStack struct {
	rt sandbox.Runtime
	rp *replayer.Replayer
	rs *reset.Resetter
}

// stackConfig is what a command brings to its episodeStack.
type stackConfig struct {
	command     string // names the budget in what is printed
	rt          runtimeFlags
	services    []string
	capacity    *capacityFlags
	task        *task.Task
	concurrency int
	// reset are the command's own resetter options (a prefix cache).
	reset []reset.Option
}

// openEpisodeStack builds the stack; on error nothing it made is left.
func openEpisodeStack(ctx context.Context, s Streams, log *slog.Logger, cfg stackConfig) (_ *episodeStack, err error) {
	services, err := parseServices(cfg.services)
	if err != nil {
		return nil, err
	}
	rp, err := replayer.New(replayer.WithServices(services), replayer.WithLogger(log))
	if err != nil {
		return nil, err
	}
	rt, err := openRuntime(ctx, cfg.rt, s.ErrOut, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = rt.Close()
		}
	}()
	reapOrphans(ctx, rt, s.ErrOut)
	if err := ensureImage(ctx, rt, cfg.rt, cfg.task.Image); err != nil {
		return nil, err
	}
	budget, err := cfg.capacity.budget(s.ErrOut, cfg.command, []*task.Task{cfg.task})
	if err != nil {
		return nil, err
	}
	opts := append(append(cfg.reset, cfg.capacity.resetOptions(budget)...),
		reset.WithLogger(log), reset.WithPoolOptions(pool.WithSize(cfg.concurrency), pool.WithLogger(log)))
	rs, err := reset.New(rt, rp, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.command, err)
	}
	return &episodeStack{rt: rt, rp: rp, rs: rs}, nil
}

// Close drains the resetter (its sandboxes removed, within a minute even
// when ctx is done) and closes the runtime.
func (st *episodeStack) Close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	return errors.Join(st.rs.Close(cctx), st.rt.Close())
}
