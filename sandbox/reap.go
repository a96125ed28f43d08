package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"
)

// Reapable is what Reap needs from a runtime; every sandbox.Runtime has it.
type Reapable interface {
	List(ctx context.Context, selector map[string]string) ([]Info, error)
	Remove(ctx context.Context, id string) error
}

type reapConfig struct {
	all         bool
	kept        bool
	olderThan   time.Duration
	dryRun      bool
	includeSelf bool
	limit       int
	now         func() time.Time
}

// ReapOption configures Reap.
type ReapOption func(*reapConfig) error

// WithAll selects every rbx-managed sandbox, whatever its owner, kept or not
// (default: only those of dead owners of this host).
func WithAll() ReapOption {
	return func(c *reapConfig) error { c.all = true; return nil }
}

// WithKept also selects the sandboxes labelled rbx.keep=true (by `rbx
// replay --keep`) whose owner is a dead process of this host (default:
// kept sandboxes are spared; WithAll and WithOlderThan select them anyway).
func WithKept() ReapOption {
	return func(c *reapConfig) error { c.kept = true; return nil }
}

// WithOlderThan selects exactly the sandboxes created more than d ago (by
// their rbx.created label, else the runtime's creation time), whatever their
// owner, live or dead, kept or not; younger ones are left alone even when
// their owner is dead. Default: no age filter.
func WithOlderThan(d time.Duration) ReapOption {
	return func(c *reapConfig) error {
		if d <= 0 {
			return fmt.Errorf("older than %v: must be positive", d)
		}
		c.olderThan = d
		return nil
	}
}

// WithDryRun makes Reap return what it would remove without removing it
// (default: remove).
func WithDryRun() ReapOption {
	return func(c *reapConfig) error { c.dryRun = true; return nil }
}

// WithSelf lets Reap select sandboxes owned by this very process (default:
// they are never selected, so a long-running command that reaps does not
// remove its own pool).
func WithSelf() ReapOption {
	return func(c *reapConfig) error { c.includeSelf = true; return nil }
}

// WithReapConcurrency sets how many removals run at once (default 4).
func WithReapConcurrency(n int) ReapOption {
	return func(c *reapConfig) error {
		if n < 1 {
			return fmt.Errorf("reap concurrency %d: must be at least 1", n)
		}
		c.limit = n
		return nil
	}
}

// Reap removes rbx-managed sandboxes of rt and returns those it removed, in
// List order. Which ones:
//   - default: those whose rbx.owner is a dead process of this host (see
//     OwnerAlive), except sandboxes labelled rbx.keep=true (unless WithKept);
//   - WithAll: all of them;
//   - WithOlderThan(d): those older than d, and only those;
//
// and, in every case, never those owned by this process unless WithSelf.
// Pooled sandboxes (rbx.task=-, rbx.pool) are treated like any other. A
// sandbox that vanished before its removal is skipped silently; other
// failures are joined into the error, next to what was removed.
func Reap(ctx context.Context, rt Reapable, opts ...ReapOption) ([]Info, error) {
	c := reapConfig{limit: 4, now: time.Now}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("reap: %w", err)
		}
	}
	if c.all && c.olderThan > 0 {
		return nil, fmt.Errorf("reap: %w: all and older-than exclude each other", ErrInvalidSpec)
	}
	infos, err := rt.List(ctx, map[string]string{LabelManaged: "true"})
	if err != nil {
		return nil, fmt.Errorf("reap: %w", err)
	}
	var picked []Info
	for _, in := range infos {
		if c.selects(in) {
			picked = append(picked, in)
		}
	}
	if c.dryRun {
		return picked, nil
	}
	return removeAll(ctx, rt, picked, c.limit)
}

func (c *reapConfig) selects(in Info) bool {
	owner := in.Labels[LabelOwner]
	switch {
	case owner == Owner && !c.includeSelf:
		return false
	case c.all:
		return true
	case c.olderThan > 0:
		return c.now().Sub(Created(in)) > c.olderThan
	case in.Labels[LabelKeep] == "true" && !c.kept:
		return false
	}
	alive, sameHost := OwnerAlive(owner)
	return sameHost && !alive
}

// removeAll removes picked with at most limit removals at once.
func removeAll(ctx context.Context, rt Reapable, picked []Info, limit int) ([]Info, error) {
	done := make([]bool, len(picked))
	errs := make([]error, len(picked))
	var g errgroup.Group
	g.SetLimit(limit)
	for i, in := range picked {
		g.Go(func() error {
			err := rt.Remove(ctx, in.ID)
			switch {
			case err == nil:
				done[i] = true
			case !errors.Is(err, ErrNotFound): // gone already: someone else reaped it
				errs[i] = fmt.Errorf("reap %s: %w", in.ID, err)
			}
			return nil // keep going: one failure must not spare the rest
		})
	}
	_ = g.Wait()
	var removed []Info
	for i, in := range picked {
		if done[i] {
			removed = append(removed, in)
		}
	}
	return removed, errors.Join(errs...)
}

// Created returns when in was created: its rbx.created label (Unix seconds)
// when present and valid, else the runtime's own creation time.
func Created(in Info) time.Time {
	if s, err := strconv.ParseInt(in.Labels[LabelCreated], 10, 64); err == nil {
		return time.Unix(s, 0)
	}
	return in.Created
}
