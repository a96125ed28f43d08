package pool

import (
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
	// handed out and not yet discarded.
	Idle     int   `json:"idle"`
	Creating int64 `json:"creating"`
	InUse    int64 `json:"in_use"`
	// Removing are discarded sandboxes whose removal has not finished
	// (removal runs in the background).
	Removing int64 `json:"removing"`
	// Created, Discarded and Broken count sandboxes over the pool's life;
	// Broken ones failed their liveness check when handed out; Failed counts
	// failed creations.
	Created   int64 `json:"created"`
	Discarded int64 `json:"discarded"`
	Broken    int64 `json:"broken"`
	Failed    int64 `json:"failed"`
	// Acquires, WaitTotal and WaitMax describe how long Acquire waited.
	Acquires  int64         `json:"acquires"`
	WaitTotal time.Duration `json:"wait_total_ns"`
	WaitMax   time.Duration `json:"wait_max_ns"`
	// CreateMean is the mean time to create and prepare a sandbox.
	CreateMean time.Duration `json:"create_mean_ns"`
	LastError  string        `json:"last_error,omitempty"`
}

type counters struct {
	creating, inUse, removing, created, discarded, broken, failed atomic.Int64
	acquires, waitNanos, waitMax, createNanos                     atomic.Int64
	mu                                                            sync.Mutex
	lastErr                                                       error
}

func (c *counters) observeWait(d time.Duration) {
	c.acquires.Add(1)
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

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	s := Stats{Key: p.tmpl.Key, Size: p.cfg.size, Idle: len(p.idle), Creating: p.stats.creating.Load(),
		InUse: p.stats.inUse.Load(), Removing: p.stats.removing.Load(), Created: p.stats.created.Load(), Discarded: p.stats.discarded.Load(),
		Broken: p.stats.broken.Load(), Failed: p.stats.failed.Load(), Acquires: p.stats.acquires.Load(),
		WaitTotal: time.Duration(p.stats.waitNanos.Load()), WaitMax: time.Duration(p.stats.waitMax.Load())}
	if s.Created > 0 {
		s.CreateMean = time.Duration(p.stats.createNanos.Load() / s.Created)
	}
	if err := p.stats.lastError(); err != nil {
		s.LastError = err.Error()
	}
	return s
}
