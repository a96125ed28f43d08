package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
)

// stackBuilder is the one construction path of the runtime → replayer →
// resetter wiring every command that runs trajectories uses (serve, demo,
// prefilter, replay, verify, probe, intervene). It is built in two steps
// so that a command checks its flags before it opens anything: newStack
// checks the options and builds the replayer; open opens the runtime and
// the rest.
type stackBuilder struct {
	cfg stackConfig
	rp  *replayer.Replayer
}

// stack is an open stack: the runtime, the replayer, and what the
// command's options asked for (budget, resetter); Close releases it.
type stack struct {
	cfg      stackConfig
	rt       sandbox.Runtime
	rp       *replayer.Replayer
	budget   *capacity.Budget   // nil without withBudget
	rs       *reset.Resetter    // nil without withResetter
	stopReap context.CancelFunc // stops withReapLoop's loop
}

// newStack checks a command's stack options (flag values: services,
// --compare, the prefix cache) and builds its replayer; it opens nothing.
// command names the stack in what is printed; rt are its runtime flags.
func newStack(s Streams, log *slog.Logger, command string, rt runtimeFlags, opts ...stackOption) (*stackBuilder, error) {
	cfg := stackConfig{command: command, rt: rt, log: log, errOut: s.ErrOut, services: map[string]string{}}
	if err := cfg.apply(opts); err != nil {
		return nil, err
	}
	rp, err := cfg.newReplayer()
	if err != nil {
		return nil, err
	}
	return &stackBuilder{cfg: cfg, rp: rp}, nil
}

// openStack is newStack then open, for the commands that have nothing to
// check or find between the two.
func openStack(ctx context.Context, s Streams, log *slog.Logger, command string, rt runtimeFlags, tasks []*task.Task, opts ...stackOption) (*stack, error) {
	b, err := newStack(s, log, command, rt, opts...)
	if err != nil {
		return nil, err
	}
	return b.open(ctx, tasks...)
}

// open opens the runtime, then what the options ask for, in this order:
// orphans reaped (and the reap loop started), the images of tasks made
// present, the budget sized for tasks, the resetter. On error nothing it
// opened is left: the runtime is closed.
func (b *stackBuilder) open(ctx context.Context, tasks ...*task.Task) (_ *stack, err error) {
	c := b.cfg
	rt, err := openRuntime(ctx, c.rt, c.errOut, c.log)
	if err != nil {
		return nil, err
	}
	st := &stack{cfg: c, rt: rt, rp: b.rp, stopReap: func() {}}
	defer func() {
		if err != nil {
			_ = st.closeWithin(context.WithoutCancel(ctx))
		}
	}()
	if c.reap {
		reapOrphans(ctx, rt, c.errOut)
	}
	if c.reapLoop {
		var rctx context.Context
		rctx, st.stopReap = context.WithCancel(ctx)
		go server.ReapLoop(rctx, rt, server.FirstReap, server.ReapEvery, reapReport(rt.Name(), c.errOut))
	}
	if c.images {
		if err := buildTaskImages(ctx, rt, c.errOut, tasks...); err != nil {
			return nil, err
		}
		for _, img := range imagesOf(tasks) {
			if err := ensureImage(ctx, rt, c.rt, img); err != nil {
				return nil, err
			}
		}
	}
	if c.capacity != nil {
		if st.budget, err = c.capacity.budget(c.errOut, c.command, tasks); err != nil {
			return nil, err
		}
	}
	if c.resetter {
		if st.rs, err = st.newResetter(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// newResetter builds a resetter on the stack's runtime, replayer and
// budget, with opts added to the command's options. open builds the
// stack's own; demo builds one only for its serve stage and closes it
// itself.
func (st *stack) newResetter(opts ...stackOption) (*reset.Resetter, error) {
	c := st.cfg
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	ropts := append([]reset.Option{reset.WithLogger(c.log), reset.WithPoolOptions(pool.WithSize(c.pool))}, c.reset...)
	switch {
	case st.budget == nil:
	case c.warm:
		ropts = append(ropts, c.capacity.serveOptions(st.budget, c.classMax)...)
	default:
		ropts = append(ropts, c.capacity.resetOptions(st.budget)...)
	}
	if c.recycle != nil && c.recycle(st.rt) {
		ropts = append(ropts, reset.WithRecycle(reset.RecycleInPlace))
	}
	rs, err := reset.New(st.rt, st.rp, ropts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.command, err)
	}
	return rs, nil
}

// Close drains the resetter (its sandboxes removed, within a minute even
// when ctx is done: cleanup must survive the Ctrl-C that ended the
// command), stops the reap loop and closes the runtime.
func (st *stack) Close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	return st.closeWithin(cctx)
}

// closeWithin is Close within ctx as given: serve shares one shutdown
// budget between its server, its stack and its database. The loop stops
// before the runtime closes, so that it never reaps through a closed one.
func (st *stack) closeWithin(ctx context.Context) error {
	var err error
	if st.rs != nil {
		err = st.rs.Close(ctx)
	}
	st.stopReap()
	return errors.Join(err, st.rt.Close())
}

// imagesOf lists the images of tasks, each once, in order.
func imagesOf(tasks []*task.Task) []string {
	seen := map[string]bool{}
	var out []string
	for _, tk := range tasks {
		if !seen[tk.Image] {
			seen[tk.Image] = true
			out = append(out, tk.Image)
		}
	}
	return out
}
