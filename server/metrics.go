package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rbx-sandbox/rbx/pool"
)

// metrics are the server's Prometheus series, in a registry of its own
// (two servers in one test process do not collide).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.HistogramVec
	resets    *prometheus.CounterVec
	resetDur  *prometheus.HistogramVec
	phases    *prometheus.HistogramVec
	stepExec  prometheus.Histogram
	outcomes  *prometheus.CounterVec
	errors    *prometheus.CounterVec
	lost      prometheus.Counter
	expired   prometheus.Counter
	truncated prometheus.Counter
	recovered *prometheus.CounterVec
	repairDur prometheus.Histogram
	ends      *prometheus.CounterVec
	perTask   bool // task and pool labels name each task (see WithTaskSeries)
}

var latencyBuckets = []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(), perTask: len(s.cat) <= s.cfg.series,
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rbx_serve_request_seconds",
			Help: "HTTP request latency by route and status code.", Buckets: latencyBuckets}, []string{"route", "code"}),
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_resets_total",
			Help: "Episodes reset, by task and result (ok, failed)."}, []string{"task", "result"}),
		resetDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rbx_serve_reset_seconds",
			Help: "Time to hand out one episode (pool wait and replay to k).", Buckets: latencyBuckets}, []string{"task"}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rbx_serve_reset_phase_seconds",
			Help:    "Time of one reset by phase: pool_wait (a warm sandbox), cache_apply (restoring a cached prefix), live_replay (steps replayed live), cache_build (capturing a prefix for the cache).",
			Buckets: latencyBuckets}, []string{"phase"}),
		stepExec: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rbx_serve_step_exec_seconds",
			Help: "The sandbox's own execution time of one policy step.", Buckets: latencyBuckets}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_outcomes_total",
			Help: "Evaluated episodes by task and result (success, failure)."}, []string{"task", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_errors_total",
			Help: "Error responses by code."}, []string{"code"}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "rbx_serve_episodes_lost_total",
			Help: "Episodes a previous server process left open (found at start-up)."}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{Name: "rbx_serve_episodes_expired_total",
			Help: "Episodes removed after the idle TTL."}),
		truncated: prometheus.NewCounter(prometheus.CounterOpts{Name: "rbx_serve_episodes_truncated_total",
			Help: "Episodes ended at their task's episode_timeout."}),
		recovered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_episodes_recovered_total",
			Help: "Sandboxes rebuilt by replay under an open episode, by the fault's reason (docs/durability.md)."}, []string{"reason"}),
		repairDur: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rbx_serve_repair_seconds",
			Help: "Time to rebuild one episode's sandbox (reset to k and its actions redone).", Buckets: latencyBuckets}),
		ends: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_episode_ends_total",
			Help: "Episodes ended without a verdict of their verifier, by attribution (policy, task, infrastructure) and reason."}, []string{"attribution", "reason"}),
	}
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rbx_serve_episodes_open",
		Help: "Episodes holding a sandbox."}, func() float64 { return float64(s.openCount()) })
	m.reg.MustRegister(m.requests, m.resets, m.resetDur, m.phases, prefixCollector{s}, newCapacityCollector(s.rs.Budget()), m.stepExec, m.outcomes, m.errors, m.lost, m.expired, m.truncated, m.recovered, m.repairDur, m.ends, open,
		poolCollector{s}, collectors.NewGoCollector())
	return m
}

func (m *metrics) handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

func (m *metrics) observeRequest(r *http.Request, status int, d time.Duration) {
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

// poolCollector reports every warm pool's counters at scrape time.
type poolCollector struct{ s *Server }

var (
	poolIdle          = prometheus.NewDesc("rbx_pool_idle", "Idle warm sandboxes.", []string{"pool"}, nil)
	poolInUse         = prometheus.NewDesc("rbx_pool_in_use", "Sandboxes handed out.", []string{"pool"}, nil)
	poolRemove        = prometheus.NewDesc("rbx_pool_removing", "Discarded sandboxes still being removed.", []string{"pool"}, nil)
	poolCreated       = prometheus.NewDesc("rbx_pool_created_total", "Sandboxes created.", []string{"pool"}, nil)
	poolFailed        = prometheus.NewDesc("rbx_pool_failed_total", "Failed sandbox creations.", []string{"pool"}, nil)
	poolBroken        = prometheus.NewDesc("rbx_pool_broken_total", "Sandboxes that failed their liveness check.", []string{"pool"}, nil)
	poolWait          = prometheus.NewDesc("rbx_pool_wait_seconds_total", "Total time spent waiting to acquire.", []string{"pool"}, nil)
	poolRecycled      = prometheus.NewDesc("rbx_pool_recycled_total", "Sandboxes returned to their fresh state in place (docs/recycling.md).", []string{"pool"}, nil)
	poolRecycleFailed = prometheus.NewDesc("rbx_pool_recycle_failed_total", "Sandboxes whose recycle could not be proved fresh (removed).", []string{"pool"}, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolIdle, poolInUse, poolRemove, poolCreated, poolFailed, poolBroken, poolWait, poolRecycled, poolRecycleFailed} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	stats := c.s.rs.Stats()
	if !c.s.met.perTask {
		stats = []pool.Stats{sumPools(stats)}
	}
	for _, st := range stats {
		ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(st.Idle), st.Key)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(st.InUse), st.Key)
		ch <- prometheus.MustNewConstMetric(poolRemove, prometheus.GaugeValue, float64(st.Removing), st.Key)
		ch <- prometheus.MustNewConstMetric(poolCreated, prometheus.CounterValue, float64(st.Created), st.Key)
		ch <- prometheus.MustNewConstMetric(poolFailed, prometheus.CounterValue, float64(st.Failed), st.Key)
		ch <- prometheus.MustNewConstMetric(poolBroken, prometheus.CounterValue, float64(st.Broken), st.Key)
		ch <- prometheus.MustNewConstMetric(poolWait, prometheus.CounterValue, st.WaitTotal.Seconds(), st.Key)
		ch <- prometheus.MustNewConstMetric(poolRecycled, prometheus.CounterValue, float64(st.Recycled), st.Key)
		ch <- prometheus.MustNewConstMetric(poolRecycleFailed, prometheus.CounterValue, float64(st.RecycleFailed), st.Key)
	}
}
