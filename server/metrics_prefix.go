package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rbx-sandbox/rbx/reset"
)

// observePhases splits a reset's time by phase; the cache phases only when
// they happened.
func (m *metrics) observePhases(rs *reset.Episode) {
	t := rs.Timings
	m.phases.WithLabelValues("pool_wait").Observe(t.PoolWait.Seconds())
	m.phases.WithLabelValues("live_replay").Observe(t.Replay.Seconds())
	if rs.Cache == reset.CacheHit && !rs.Staged {
		m.phases.WithLabelValues("cache_apply").Observe(t.Apply.Seconds())
	}
	if rs.Cache == reset.CacheBuilt {
		m.phases.WithLabelValues("cache_build").Observe(t.Build.Seconds())
	}
}

// prefixCollector reports the prefix cache's counters at scrape time
// (nothing when the cache is off).
type prefixCollector struct{ s *Server }

var (
	prefixStaged  = prometheus.NewDesc("rbx_prefix_cache_staged", "Sandboxes restored from the prefix cache ahead of resets, ready.", nil, nil)
	prefixEntries = prometheus.NewDesc("rbx_prefix_cache_entries", "Prefix states held by the cache.", nil, nil)
	prefixBytes   = prometheus.NewDesc("rbx_prefix_cache_bytes", "Memory held by the prefix cache (entries and baseline scans).", nil, nil)
	prefixLookups = prometheus.NewDesc("rbx_prefix_cache_lookups_total", "Resets by what the prefix cache gave them: hit (state restored), miss (state built), bypass (nothing reusable).", []string{"result"}, nil)
	prefixRatio   = prometheus.NewDesc("rbx_prefix_cache_hit_ratio", "Hits over all prefix cache lookups.", nil, nil)
	prefixEvents  = prometheus.NewDesc("rbx_prefix_cache_events_total", "Prefix cache events: built, build_failed (not reusable), apply_failed, evicted.", []string{"event"}, nil)
)

func (c prefixCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{prefixStaged, prefixEntries, prefixBytes, prefixLookups, prefixRatio, prefixEvents} {
		ch <- d
	}
}

func (c prefixCollector) Collect(ch chan<- prometheus.Metric) {
	pc := c.s.rs.PrefixCache()
	if pc == nil {
		return
	}
	st := pc.Stats()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	count := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(prefixEntries, float64(st.Entries))
	gauge(prefixStaged, float64(c.s.rs.Staged()))
	gauge(prefixBytes, float64(st.Bytes))
	gauge(prefixRatio, st.HitRatio())
	count(prefixLookups, st.Hits, "hit")
	count(prefixLookups, st.Misses, "miss")
	count(prefixLookups, st.Bypassed, "bypass")
	count(prefixEvents, st.Built, "built")
	count(prefixEvents, st.BuildFailed, "build_failed")
	count(prefixEvents, st.ApplyFailed, "apply_failed")
	count(prefixEvents, st.Evicted, "evicted")
}
