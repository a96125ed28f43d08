package prefix

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCacheBoundCountsBaselines: with thousands of tasks, each task's
// baseline listing counts against the memory bound and is evicted least
// recently used first, beside the entries: the bound holds.
func TestCacheBoundCountsBaselines(t *testing.T) {
	clk := &clock{t: time.Unix(1e9, 0)}
	c, err := New(WithMaxBytes(10_000), withClock(clk.now))
	require.NoError(t, err)
	for i := range 5000 {
		clk.add(time.Millisecond)
		c.mu.Lock()
		tm := template{Task: fmt.Sprintf("task-%d", i), Image: "img"}
		c.bases[tm] = &baseline{l: listing{}, at: clk.now(), used: clk.now(), size: 1000}
		c.bytes += 1000
		c.evict()
		assert.LessOrEqual(t, c.bytes, int64(10_000), "after task %d", i)
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Len(t, c.bases, 10)
	_, newest := c.bases[template{Task: "task-4999", Image: "img"}]
	assert.True(t, newest, "the most recently used baseline is kept")
}
