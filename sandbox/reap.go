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
	maxAge      time.Duration // of a heartbeat, see OwnerDead
	now         func() time.Time
	// removeTimeout bounds each removal (WithRemoveTimeout).
	removeTimeout time.Duration
}

// DefaultReapRemoveTimeout bounds one removal of a reap.
const DefaultReapRemoveTimeout = 20 * time.Second

// WithRemoveTimeout bounds each removal of the reap (default
// DefaultReapRemoveTimeout): a sandbox the engine cannot remove (a
// container wedged in the engine, docs/durability.md) costs its own
// timeout, not the whole reap's, and the others are still removed and
// the dead owners' heartbeats still forgotten.
func WithRemoveTimeout(d time.Duration) ReapOption {
	return func(c *reapConfig) error {
		if d <= 0 {
			return fmt.Errorf("%w: remove timeout %v: expected > 0", ErrInvalidSpec, d)
		}
		c.removeTimeout = d
		return nil
	}
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

// WithHeartbeatMaxAge sets how old the heartbeat of an owner of another
// host may be before its sandboxes are taken for orphans (default
// DefaultHeartbeatMaxAge; see OwnerDead).
func WithHeartbeatMaxAge(d time.Duration) ReapOption {
	return func(c *reapConfig) error {
		if d <= 0 {
			return fmt.Errorf("heartbeat max age %v: must be positive", d)
		}
		c.maxAge = d
		return nil
	}
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
//   - default: those whose rbx.owner is dead (see OwnerDead: a process of
//     this host that is gone, or an owner elsewhere whose heartbeat in rt
//     is stale), except sandboxes labelled rbx.keep=true (unless WithKept);
//   - WithAll: all of them;
//   - WithOlderThan(d): those older than d, and only those;
//
// and, in every case, never those owned by this process unless WithSelf.
// Pooled sandboxes (rbx.task=-, rbx.pool) are treated like any other. A
// sandbox that vanished before its removal is skipped silently; other
// failures are joined into the error, next to what was removed. When rt
// keeps heartbeats (HeartbeatStore), the records of dead owners left with
// no sandbox are removed too.
func Reap(ctx context.Context, rt Reapable, opts ...ReapOption) ([]Info, error) {
	c := reapConfig{limit: 4, maxAge: DefaultHeartbeatMaxAge, now: time.Now, removeTimeout: DefaultReapRemoveTimeout}
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
	store, _ := rt.(HeartbeatStore)
	var beats map[string]time.Time
	var beatErr error
	if store != nil {
		// Without them no owner of another host is found dead: safe.
		if beats, err = store.Heartbeats(ctx); err != nil {
			beats, beatErr = nil, fmt.Errorf("reap: heartbeats: %w", err)
		}
	}
	var picked []Info
	for _, in := range infos {
		if c.selects(in, beats) {
			picked = append(picked, in)
		}
	}
	if c.dryRun {
		return picked, beatErr
	}
	removed, err := removeAll(ctx, rt, picked, c.limit, c.removeTimeout)
	if store != nil {
		err = errors.Join(err, c.forgetStale(ctx, store, beats, infos, removed))
	}
	return removed, errors.Join(beatErr, err)
}

// forgetStale removes the heartbeat records of dead owners (OwnerDead: a
// gone process of this host, a stale beat elsewhere) who own none of
// infos but those removed: nothing needs them.
func (c *reapConfig) forgetStale(ctx context.Context, store HeartbeatStore, beats map[string]time.Time, infos, removed []Info) error {
	gone := map[string]bool{}
	for _, in := range removed {
		gone[in.ID] = true
	}
	owns := map[string]bool{}
	for _, in := range infos {
		if !gone[in.ID] {
			owns[in.Labels[LabelOwner]] = true
		}
	}
	var errs []error
	for owner, beat := range beats {
		if owner == Owner || owns[owner] || !OwnerDead(owner, map[string]time.Time{owner: beat}, c.now(), c.maxAge) {
			continue
		}
		if err := store.ForgetHeartbeat(ctx, owner); err != nil {
			errs = append(errs, fmt.Errorf("reap: forget heartbeat of %s: %w", owner, err))
		}
	}
	return errors.Join(errs...)
}

func (c *reapConfig) selects(in Info, beats map[string]time.Time) bool {
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
	return OwnerDead(owner, beats, c.now(), c.maxAge)
}

// removeAll removes picked with at most limit removals at once, each
// bounded by timeout.
func removeAll(ctx context.Context, rt Reapable, picked []Info, limit int, timeout time.Duration) ([]Info, error) {
	done := make([]bool, len(picked))
	errs := make([]error, len(picked))
	var g errgroup.Group
	g.SetLimit(limit)
	for i, in := range picked {
		g.Go(func() error {
			rctx, cancel := context.WithTimeout(ctx, timeout)
			err := rt.Remove(rctx, in.ID)
			cancel()
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
