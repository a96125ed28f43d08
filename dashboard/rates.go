package dashboard

import (
	"math"
	"sync"
	"time"
)

// sampler keeps recent scrapes so that counters become rates over the
// last window: every page view and poll adds one, so the figures are as
// fresh as the page without a background loop.
type sampler struct {
	mu      sync.Mutex
	window  time.Duration
	samples []sample
}

type sample struct {
	at time.Time
	s  scrape
}

func newSampler(window time.Duration) *sampler { return &sampler{window: window} }

// rates are the server's figures over the recent window (Since says how
// long; 0 when this is the first sample, and the figures are lifetime).
type rates struct {
	Since      time.Duration
	Resets     float64            // resets per second, every task
	TaskResets map[string]float64 // resets per second by task
	Step       latency            // a whole step, server side
	Exec       latency            // the sandbox's own execution time
	Reset      latency            // a reset: pool wait and replay
}

// latency is a histogram's mean and 95th percentile in milliseconds, NaN
// when nothing was observed; N is how many. Lifetime: nothing was
// observed in the window, so the figures are since the server started.
type latency struct {
	N         float64
	Mean, P95 float64
	Lifetime  bool
}

// latencyOf is over the window (h minus base), or over the server's life
// when the window saw nothing (an idle server still shows its figures).
func latencyOf(h, base hist) latency {
	d, life := h.sub(base), false
	if d.count <= 0 {
		d, life = h, true
	}
	return latency{N: d.count, Mean: d.mean() * 1000, P95: d.quantile(0.95) * 1000, Lifetime: life}
}

// observe adds s taken at now and returns the rates against the oldest
// sample inside the window (lifetime figures over uptime without one).
func (p *sampler) observe(now time.Time, s scrape, uptime time.Duration) rates {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.samples[:0]
	for _, old := range p.samples {
		if now.Sub(old.at) <= p.window {
			keep = append(keep, old)
		}
	}
	p.samples = append(keep, sample{at: now, s: s})
	base, dt := scrape{}, uptime
	if first := p.samples[0]; now.Sub(first.at) >= time.Second {
		base, dt = first.s, now.Sub(first.at)
	}
	r := rates{TaskResets: map[string]float64{}, Step: latencyOf(s.step, base.step),
		Exec: latencyOf(s.exec, base.exec), Reset: latencyOf(s.reset, base.reset)}
	if base.resets != nil {
		r.Since = dt
	}
	secs := math.Max(dt.Seconds(), 1e-3)
	for task, n := range s.resets {
		r.TaskResets[task] = (n - base.resets[task]) / secs
	}
	r.Resets = (s.total() - base.total()) / secs
	return r
}
