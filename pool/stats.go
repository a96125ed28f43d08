package pool

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a pool's counters.
type Stats struct {
	Key string `json:"key"`
	// Size is the target number of idle sandboxes.
	Size int `json:"size"`
	// Idle are ready to hand out; Creating are being created; InUse were
	// handed out and not yet given back.
	Idle     int   `json:"idle"`
	Creating int64 `json:"creating"`
	InUse    int64 `json:"in_use"`
	// Removing are discarded sandboxes whose removal has not finished
	// (removal runs in the background).
	Removing int64 `json:"removing"`
	// Created, Discarded and Broken count sandboxes over the pool's life;
	// Broken ones failed their liveness check when handed out; Failed counts
	// failed creations; Evicted idle ones removed to make room in the
	// budget; Removed the removals that ended.
	Created   int64 `json:"created"`
	Discarded int64 `json:"discarded"`
	Broken    int64 `json:"broken"`
	Failed    int64 `json:"failed"`
	Evicted   int64 `json:"evicted"`
	Removed   int64 `json:"removed"`
	// Recycled counts sandboxes returned to their fresh state in place;
	// RecycleFailed those that could not be proved fresh (removed).
	Recycled      int64 `json:"recycled"`
	RecycleFailed int64 `json:"recycle_failed"`
	// Recycling: the pool recycles the sandboxes given back.
	Recycling bool `json:"recycling"`
	// Acquires, WaitTotal and WaitMax describe how long Acquire waited.
	Acquires  int64         `json:"acquires"`
	WaitTotal time.Duration `json:"wait_total_ns"`
	WaitMax   time.Duration `json:"wait_max_ns"`
	// CreateMean is the mean time to create and prepare a sandbox,
	// RemoveMean to remove one, RecycleMean to recycle one.
	CreateMean  time.Duration `json:"create_mean_ns"`
	RemoveMean  time.Duration `json:"remove_mean_ns"`
	RecycleMean time.Duration `json:"recycle_mean_ns"`
	// PrepareMean is the part of CreateMean a recyclable sandbox's
	// creation spent preparing recycling (its fresh listing); 0 when the
	// backend does not say (sandbox.RecyclePreparer).
	PrepareMean time.Duration `json:"recycle_prepare_mean_ns"`
	// PrepareRecent is the median of the last recentPrepares
	// preparations: what the next recyclable creation is likely to cost.
	// The first sandbox of an image lists it whole, the next ones only what
	// their upper layer holds (docs/recycling.md), so the mean over all
	// overstates the cost ahead.
	PrepareRecent time.Duration `json:"recycle_prepare_recent_ns"`
	// CreatedReturning counts the creations made after the first sandbox
	// was given back: the ones recycling did not avoid.
	CreatedReturning int64  `json:"created_returning"`
	LastError        string `json:"last_error,omitempty"`
}

type counters struct {
	creating, inUse, removing, created, discarded, broken, failed, evicted atomic.Int64
	removed, removeNanos, recycled, recycleFailed, recycleNanos            atomic.Int64
	acquires, waitNanos, waitMax, createNanos                              atomic.Int64
	prepareNanos, createdReturning, returned                               atomic.Int64
	mu                                                                     sync.Mutex
	lastErr                                                                error
	prepares                                                               []time.Duration // the last recentPrepares, under mu
}

// recentPrepares is how many preparations PrepareRecent is the median of.
const recentPrepares = 5

// observePrepare records one recyclable creation's preparation.
func (c *counters) observePrepare(d time.Duration) {
	c.prepareNanos.Add(int64(d))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prepares = append(c.prepares, d)
	if len(c.prepares) > recentPrepares {
		c.prepares = c.prepares[1:]
	}
}

// prepareRecent is the median of the recent preparations (0: none).
func (c *counters) prepareRecent() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.prepares) == 0 {
		return 0
	}
	s := slices.Clone(c.prepares)
	slices.Sort(s)
	return s[len(s)/2]
}

func (c *counters) observeWait(d time.Duration) {
	c.waitNanos.Add(int64(d))
	for {
		old := c.waitMax.Load()
		if int64(d) <= old || c.waitMax.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

func (c *counters) fail(err error) {
	c.failed.Add(1)
	c.mu.Lock()
	c.lastErr = err
	c.mu.Unlock()
}

func (c *counters) lastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func mean(total, n int64) time.Duration {
	if n == 0 {
		return 0
	}
	return time.Duration(total / n)
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	idle, rc := len(p.idle), p.rc.on
	p.mu.Unlock()
	c := &p.stats
	s := Stats{Key: p.tmpl.Key, Size: p.Size(), Idle: idle, Creating: c.creating.Load(),
		InUse: c.inUse.Load(), Removing: c.removing.Load(), Created: c.created.Load(), Discarded: c.discarded.Load(),
		Broken: c.broken.Load(), Failed: c.failed.Load(), Evicted: c.evicted.Load(), Removed: c.removed.Load(),
		Recycled: c.recycled.Load(), RecycleFailed: c.recycleFailed.Load(), Recycling: rc, Acquires: c.acquires.Load(),
		WaitTotal: time.Duration(c.waitNanos.Load()), WaitMax: time.Duration(c.waitMax.Load())}
	s.CreateMean = mean(c.createNanos.Load(), s.Created)
	s.RemoveMean = mean(c.removeNanos.Load(), s.Removed)
	s.RecycleMean = mean(c.recycleNanos.Load(), s.Recycled)
	s.PrepareMean = mean(c.prepareNanos.Load(), s.Created)
	s.PrepareRecent = c.prepareRecent()
	s.CreatedReturning = c.createdReturning.Load()
	if err := c.lastError(); err != nil {
		s.LastError = err.Error()
	}
	return s
}
