package prefix

// Stats are the cache's counters.
type Stats struct {
	// Entries and Bytes are what the cache holds now (entries and the
	// templates' baseline scans).
	Entries int   `json:"entries"`
	Bytes   int64 `json:"bytes"`
	// Hits were served from an entry (after waiting for its build, for the
	// members of a group); Misses built one (or tried to); Bypassed could
	// take nothing (no reusable step, not reusable, cache off for the
	// backend).
	Hits     int64 `json:"hits"`
	Misses   int64 `json:"misses"`
	Bypassed int64 `json:"bypassed"`
	// Built entries, BuildFailed builds (not reusable or capture failed),
	// ApplyFailed applies that did not read back, Evicted entries dropped
	// for size or age.
	Built       int64 `json:"built"`
	BuildFailed int64 `json:"build_failed"`
	ApplyFailed int64 `json:"apply_failed"`
	Evicted     int64 `json:"evicted"`
}

type counters struct {
	hits, misses, bypassed, built, buildFailed, applyFailed, evicted int64
}

// HitRatio is Hits over all lookups (0 before the first).
func (s Stats) HitRatio() float64 {
	n := s.Hits + s.Misses + s.Bypassed
	if n == 0 {
		return 0
	}
	return float64(s.Hits) / float64(n)
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Entries: c.lru.Len(), Bytes: c.bytes, Hits: c.st.hits, Misses: c.st.misses, Bypassed: c.st.bypassed,
		Built: c.st.built, BuildFailed: c.st.buildFailed, ApplyFailed: c.st.applyFailed, Evicted: c.st.evicted}
}
