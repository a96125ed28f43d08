package sandbox

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Owner liveness across hosts. OwnerAlive reads /proc, which only tells
// about processes of this host (and of this pid namespace). An rbx process
// therefore also keeps a heartbeat where the backend itself stores it, seen
// by every rbx process sharing that backend: Reap takes an owner of another
// host for dead once its heartbeat is older than a bound.

// Defaults of the heartbeat and of Reap's bound on it.
const (
	// DefaultHeartbeatEvery is how often an owner refreshes its heartbeat.
	DefaultHeartbeatEvery = 20 * time.Second
	// DefaultHeartbeatMaxAge is how old a heartbeat may be before Reap
	// takes its owner for dead: six missed beats, so a slow engine or a
	// paused process is not mistaken for a dead one.
	DefaultHeartbeatMaxAge = 2 * time.Minute
)

// Label keys of the heartbeat records backends keep (a containerd
// container record, a Docker volume).
const (
	// LabelHeartbeatOwner holds the owner id (as LabelOwner) of a record.
	LabelHeartbeatOwner = "rbx.heartbeat-owner"
	// LabelHeartbeat holds the last heartbeat, in Unix seconds.
	LabelHeartbeat = "rbx.heartbeat"
)

// HeartbeatStore is where a backend keeps owners' heartbeats, visible to
// every rbx process that shares the backend.
type HeartbeatStore interface {
	// Beat records that owner was alive at at.
	Beat(ctx context.Context, owner string, at time.Time) error
	// Heartbeats returns the last heartbeat of every owner that has one.
	Heartbeats(ctx context.Context) (map[string]time.Time, error)
	// ForgetHeartbeat removes owner's record; a missing one is no error.
	ForgetHeartbeat(ctx context.Context, owner string) error
}

// Heartbeat keeps one owner's heartbeat fresh from its first Start until
// Stop. Backends start it at their first Create, so that commands that
// create nothing (gc, images) leave no record.
type Heartbeat struct {
	store HeartbeatStore
	owner string
	every time.Duration
	log   *slog.Logger

	once   sync.Once
	cancel context.CancelFunc
	done   chan struct{}
}

// NewHeartbeat returns a heartbeat for owner in store, every interval
// (DefaultHeartbeatEvery when zero).
func NewHeartbeat(store HeartbeatStore, owner string, every time.Duration, log *slog.Logger) *Heartbeat {
	if every <= 0 {
		every = DefaultHeartbeatEvery
	}
	return &Heartbeat{store: store, owner: owner, every: every, log: log}
}

// Start beats once, synchronously, then every interval in the background;
// later calls do nothing. A failed beat is logged, not returned: the next
// one may succeed, and until then other hosts only see an older beat.
func (h *Heartbeat) Start(ctx context.Context) {
	h.once.Do(func() {
		bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		h.cancel, h.done = cancel, make(chan struct{})
		h.beat(bctx)
		go h.loop(bctx)
	})
}

func (h *Heartbeat) loop(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(h.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.beat(ctx)
		}
	}
}

func (h *Heartbeat) beat(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, h.every)
	defer cancel()
	if err := h.store.Beat(ctx, h.owner, time.Now()); err != nil && ctx.Err() == nil {
		h.log.Warn("heartbeat", "owner", h.owner, "err", err)
	}
}

// Stop ends the beats and reports whether they had started. The record
// stays, and ages: Reap forgets it once it is stale and its owner has no
// sandbox left.
func (h *Heartbeat) Stop() bool {
	h.once.Do(func() {}) // waits for a Start under way; a Start after Stop does nothing
	if h.cancel == nil {
		return false
	}
	h.cancel()
	<-h.done
	return true
}

// End stops the beats and, when the owner has no sandbox left in rt,
// removes its record, so that a clean exit leaves nothing behind. An owner
// that keeps sandboxes (rbx replay --keep) keeps its record, which ages
// until Reap elsewhere may take the owner for dead.
func (h *Heartbeat) End(ctx context.Context, rt Reapable) error {
	if !h.Stop() {
		return nil
	}
	left, err := rt.List(ctx, map[string]string{LabelManaged: "true", LabelOwner: h.owner})
	if err != nil || len(left) > 0 {
		return err
	}
	return h.store.ForgetHeartbeat(ctx, h.owner)
}
