package server

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
)

// defaultEvidenceInterval is the least time between two evidence calls on
// one episode: each replays the whole episode in a scratch sandbox.
const defaultEvidenceInterval = time.Second

// evidenceConfig holds the evidence route's settings (nil: defaults).
type evidenceConfig struct {
	interval time.Duration
	src      evidence.Source
}

// WithEvidenceInterval sets the least time between two evidence calls on
// the same episode (default 1s; 0 removes the limit); a call sooner gets
// 429 rate_limited with Retry-After.
func WithEvidenceInterval(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("evidence interval %v: expected ≥ 0", d)
		}
		c.evidenceCfg().interval = d
		return nil
	}
}

// WithEvidenceSource sets how evidence states are materialised (default
// evidence.Replay on the server's resetter: a scratch sandbox from the
// task's pool, prefix and actions replayed). A prefix cache plugs in here.
func WithEvidenceSource(src evidence.Source) Option {
	return func(c *config) error { c.evidenceCfg().src = src; return nil }
}

func (c *config) evidenceCfg() *evidenceConfig {
	if c.evidence == nil {
		c.evidence = &evidenceConfig{interval: defaultEvidenceInterval}
	}
	return c.evidence
}

func (s *Server) evidenceSource() evidence.Source {
	if s.cfg.evidence != nil && s.cfg.evidence.src != nil {
		return s.cfg.evidence.src
	}
	return evidence.Replay{RS: s.rs}
}

// evidenceLimiter remembers each episode's last evidence call.
type evidenceLimiter struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// evidenceAllowed admits an evidence call on episode id, or answers 429.
func (s *Server) evidenceAllowed(id string) *APIError {
	every := defaultEvidenceInterval
	if s.cfg.evidence != nil {
		every = s.cfg.evidence.interval
	}
	if every == 0 {
		return nil
	}
	l := &s.evl
	l.mu.Lock()
	defer l.mu.Unlock()
	t := now()
	if l.last == nil || len(l.last) > 4096 {
		l.prune(t, every)
	}
	if wait := l.last[id].Add(every).Sub(t); wait > 0 {
		secs := max(1, int(math.Ceil(wait.Seconds())))
		e := apiErr(http.StatusTooManyRequests, CodeRateLimited,
			"episode %s: one evidence call per %v (--evidence-interval); retry in %v", id, every, wait.Round(time.Millisecond)).
			With("retry_after", secs).With("interval_ms", every.Milliseconds())
		e.RetryAfter = secs
		return e
	}
	l.last[id] = t
	return nil
}

// prune forgets calls older than every. Callers hold l.mu.
func (l *evidenceLimiter) prune(t time.Time, every time.Duration) {
	if l.last == nil {
		l.last = map[string]time.Time{}
	}
	for id, at := range l.last {
		if t.Sub(at) >= every {
			delete(l.last, id)
		}
	}
}
