package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// stackConfig is what a command states about its stack: the bare stack is
// a runtime and a replayer; each option adds a part or changes one.
type stackConfig struct {
	command  string // names the budget in what is printed, and the resetter's errors
	rt       runtimeFlags
	log      *slog.Logger
	errOut   io.Writer
	services map[string]string
	compare  bool // --compare given: a replayer error is a usage error naming it
	replay   []replayer.Option
	reap     bool // orphans of dead rbx processes reaped at open
	reapLoop bool
	images   bool
	capacity *capacityFlags // nil: no budget
	warm     bool           // serve's demand-driven warming, classMax per class
	classMax int
	resetter bool
	pool     int
	reset    []reset.Option // the prefix cache
	recycle  func(sandbox.Runtime) bool
}

// stackOption states one way a command's stack differs from the bare one.
// It fails on a bad flag value, before anything is opened.
type stackOption func(*stackConfig) error

func (c *stackConfig) apply(opts []stackOption) error {
	for _, o := range opts {
		if err := o(c); err != nil {
			return err
		}
	}
	// Warming is shared out of the budget: without one it has nothing to share.
	if c.warm && c.capacity == nil {
		return errors.New("stack: warming needs a budget (withBudget)")
	}
	return nil
}

// withServiceFlags overrides task service URLs with --service NAME=URL
// values (default: the tasks' own URLs).
func withServiceFlags(list []string) stackOption {
	return func(c *stackConfig) error {
		m, err := parseServices(list)
		if err != nil {
			return err
		}
		maps.Copy(c.services, m)
		return nil
	}
}

// withServices overrides task service URLs by name, for services the
// command starts itself (demo's OTP service). Default: none.
func withServices(m map[string]string) stackOption {
	return func(c *stackConfig) error { maps.Copy(c.services, m); return nil }
}

// withCompare sets the replayer's --compare mode (default: the replayer's,
// normalized); a bad one is a usage error.
func withCompare(mode string) stackOption {
	return func(c *stackConfig) error {
		c.compare = true
		c.replay = append(c.replay, replayer.WithCompare(replayer.Comparison(mode)))
		return nil
	}
}

// withReplayer passes options to the replayer (an excerpt size, a step
// hook). Default: none beyond services and the logger.
func withReplayer(opts ...replayer.Option) stackOption {
	return func(c *stackConfig) error { c.replay = append(c.replay, opts...); return nil }
}

// withOrphansReaped removes, at open, the sandboxes of dead rbx processes
// (default: left to rbx gc), so that they do not count against the budget.
func withOrphansReaped() stackOption {
	return func(c *stackConfig) error { c.reap = true; return nil }
}

// withReapLoop keeps reaping them every minute until the stack is closed
// (default: off); for a long-running server.
func withReapLoop() stackOption {
	return func(c *stackConfig) error { c.reapLoop = true; return nil }
}

// withImages makes the images of the tasks given to open present at open
// (default: each sandbox's creation does, or the command checks them).
func withImages() stackOption {
	return func(c *stackConfig) error { c.images = true; return nil }
}

// withBudget sizes the one budget of live sandboxes from the capacity
// flags and the tasks given to open. Default: no budget.
func withBudget(f *capacityFlags) stackOption {
	return func(c *stackConfig) error { c.capacity = f; return nil }
}

// withWarming shares the budget's idle sandboxes between sandbox classes
// by demand, at most classMax per class (serve). Default: off; needs
// withBudget.
func withWarming(classMax int) stackOption {
	return func(c *stackConfig) error { c.warm, c.classMax = true, classMax; return nil }
}

// withResetter builds a resetter at open whose warm pools keep size
// sandboxes. Default: no resetter.
func withResetter(size int) stackOption {
	return func(c *stackConfig) error { c.resetter, c.pool = true, size; return nil }
}

// withPrefixCache gives the resetter the prefix cache of the --prefix-cache
// flags, staging stage sandboxes when --prefix-cache-stage is -1.
// Default: no cache.
func withPrefixCache(p *prefixFlags, stage int) stackOption {
	return func(c *stackConfig) error {
		opts, err := p.options(c.log, stage)
		if err != nil {
			return err
		}
		c.reset = append(c.reset, opts...)
		return nil
	}
}

// withRecycling lets the resetter recycle ended episodes' sandboxes in
// place when decide, asked with the open runtime, says so (decide also
// says why on the command's stream). Default: never.
func withRecycling(decide func(sandbox.Runtime) bool) stackOption {
	return func(c *stackConfig) error { c.recycle = decide; return nil }
}

// episodeOptions are the parts probe and intervene run episodes of one task
// with: orphans reaped, its image present, the command's budget and a
// resetter whose warm pool is as large as the command's concurrency.
func episodeOptions(f *capacityFlags, concurrency int) stackOption {
	return func(c *stackConfig) error {
		return c.apply([]stackOption{withOrphansReaped(), withImages(), withBudget(f), withResetter(concurrency)})
	}
}

// newReplayer builds the replayer the options describe.
func (c *stackConfig) newReplayer() (*replayer.Replayer, error) {
	opts := append([]replayer.Option{replayer.WithServices(c.services), replayer.WithLogger(c.log)}, c.replay...)
	rp, err := replayer.New(opts...)
	switch {
	case err != nil && c.compare:
		return nil, fmt.Errorf("%w: --compare: %w", errUsage, err)
	case err != nil:
		return nil, fmt.Errorf("%s: replayer: %w", c.command, err)
	}
	return rp, nil
}
