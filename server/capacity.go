package server

import (
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rbx-sandbox/rbx/capacity"
)

// capacityRetryAfter is the Retry-After of capacity, in seconds: room
// comes back as episodes end, which a trainer's next group waits on.
const capacityRetryAfter = 2

// capacityErr is 429 capacity for a reset whose wait for room ended, nil
// for any other error.
func capacityErr(err error, b *capacity.Budget) *APIError {
	if errors.Is(err, capacity.ErrTooLarge) {
		return apiErr(http.StatusBadRequest, CodeBadRequest, "%v", err).With("max_sandboxes", b.Max()).With("retryable", false)
	}
	if !errors.Is(err, capacity.ErrFull) {
		return nil
	}
	st := b.Stats()
	e := apiErr(http.StatusTooManyRequests, CodeCapacity, "%v", err).
		With("max_sandboxes", st.Max).With("live", st.Live).With("waiting", st.Waiting).With("retryable", true)
	e.RetryAfter = capacityRetryAfter
	return e
}

// capacityCollector exports the budget to /metrics.
type capacityCollector struct {
	b                        *capacity.Budget
	max, live, peak, waiting *prometheus.Desc
	state, waits, timeouts   *prometheus.Desc
}

func newCapacityCollector(b *capacity.Budget) *capacityCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("rbx_sandboxes_"+name, help, labels, nil)
	}
	return &capacityCollector{b: b,
		max:      d("budget", "the budget of live sandboxes (--max-sandboxes)"),
		live:     d("live", "sandboxes holding a slot of the budget"),
		peak:     d("peak", "the most sandboxes alive at once"),
		waiting:  d("waiting", "resets waiting in line for room"),
		state:    d("state", "sandboxes by what they are doing", "state"),
		waits:    d("waits_total", "resets that waited for room"),
		timeouts: d("capacity_timeouts_total", "resets answered 429 capacity after waiting"),
	}
}

// Describe implements prometheus.Collector.
func (c *capacityCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.max, c.live, c.peak, c.waiting, c.state, c.waits, c.timeouts} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *capacityCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.b.Stats()
	g := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	g(c.max, float64(st.Max))
	g(c.live, float64(st.Live))
	g(c.peak, float64(st.Peak))
	g(c.waiting, float64(st.Waiting))
	for _, s := range capacity.States {
		g(c.state, float64(st.States[s]), string(s))
	}
	ch <- prometheus.MustNewConstMetric(c.waits, prometheus.CounterValue, float64(st.Waits))
	ch <- prometheus.MustNewConstMetric(c.timeouts, prometheus.CounterValue, float64(st.TimedOut))
}
