package rock

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's own series, beside the server's per-route ones.
type metrics struct {
	calls   *prometheus.HistogramVec
	running prometheus.Gauge
	starts  *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		calls: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rbx_serve_rock_call_seconds",
			Help: "ROCK API calls by endpoint and reply status (Success or Failed; HTTP is always 200)."},
			[]string{"endpoint", "status"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rbx_serve_rock_sandboxes_running",
			Help: "Sandboxes started through the ROCK API and not stopped."}),
		starts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_rock_starts_total",
			Help: "ROCK API sandbox starts by kind (task: an rbx:// image; image: a plain one) and result."},
			[]string{"kind", "result"}),
	}
	if reg != nil {
		reg.MustRegister(m.calls, m.running, m.starts)
	}
	return m
}

func (m *metrics) observe(endpoint, status string, d time.Duration) {
	m.calls.WithLabelValues(endpoint, status).Observe(d.Seconds())
}
