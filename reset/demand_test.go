package reset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDemandTargets(t *testing.T) {
	now := time.Unix(1e9, 0)
	tests := []struct {
		name        string
		requests    map[string]int // class → sandboxes asked for now
		age         time.Duration  // then this much time passes
		warm, limit int
		want        map[string]int
	}{
		{name: "split by demand", requests: map[string]int{"a": 24, "b": 8}, warm: 8, limit: 8, want: map[string]int{"a": 6, "b": 2}},
		{name: "never above the class's own count", requests: map[string]int{"a": 1}, warm: 8, limit: 8, want: map[string]int{"a": 1}},
		{name: "class limit", requests: map[string]int{"a": 40}, warm: 16, limit: 4, want: map[string]int{"a": 4}},
		{name: "faded demand holds nothing", requests: map[string]int{"a": 8}, age: 5 * demandHalfLife, warm: 8, limit: 8, want: map[string]int{}},
		{name: "half-life", requests: map[string]int{"a": 8}, age: demandHalfLife, warm: 8, limit: 8, want: map[string]int{"a": 4}},
		{name: "no warm budget", requests: map[string]int{"a": 8}, warm: 0, limit: 8, want: map[string]int{"a": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := now
			d := newDemand()
			d.now = func() time.Time { return clock }
			for class, n := range tc.requests {
				d.observe(class, "task-"+class, 1, n)
			}
			clock = clock.Add(tc.age)
			assert.Equal(t, tc.want, d.targets(tc.warm, tc.limit))
		})
	}
}

// TestDemandPointsCountRequests: a checkpoint counts requests (a group is
// one), a class counts sandboxes; faded points are forgotten.
func TestDemandPointsCountRequests(t *testing.T) {
	clock := time.Unix(1e9, 0)
	d := newDemand()
	d.now = func() time.Time { return clock }
	d.observe("c", "t", 3, 8)
	assert.InDelta(t, 1, d.point("t", 3), 1e-9)
	assert.InDelta(t, 8, d.class("c"), 1e-9)
	d.observe("c", "t", 3, 8)
	assert.InDelta(t, 2, d.point("t", 3), 1e-9)
	clock = clock.Add(10 * demandHalfLife)
	d.targets(8, 8)
	assert.Empty(t, d.points, "forgotten")
	assert.Empty(t, d.classes, "forgotten")
}

func TestDemandShare(t *testing.T) {
	clock := time.Unix(1000, 0)
	d := newDemand()
	d.now = func() time.Time { return clock }
	d.observe("busybox", "t1", 0, 8)
	d.observe("busybox", "t2", 0, 8)
	d.observe("debian", "t3", 1, 8)
	tests := []struct {
		class string
		max   int
		want  int
	}{
		{"busybox", 141, 94}, // 2/3 of 141, rounded up
		{"debian", 141, 47},
		{"toolchain", 141, 0}, // nobody asked for it
		{"debian", 1, 1},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, d.share(tc.class, tc.max), "%s of %d", tc.class, tc.max)
	}
	clock = clock.Add(20 * demandHalfLife) // faded below the floor
	assert.Equal(t, 0, d.share("debian", 141))
}

func TestFairExcess(t *testing.T) {
	tests := []struct {
		name             string
		held, sc, hf, sf int
		want             int
		yields           bool
	}{
		{name: "front holds nothing: owed room", held: 3, sc: 47, hf: 0, sf: 47, want: 3, yields: true},
		{name: "equal shares, near each other: no trading", held: 46, sc: 47, hf: 45, sf: 47, want: -4},
		{name: "equal shares, far richer", held: 60, sc: 47, hf: 30, sf: 47, want: 27, yields: true},
		{name: "twice the demand, twice the sandboxes: fair", held: 60, sc: 94, hf: 30, sf: 47, want: -7},
		{name: "half the demand, as many: richer", held: 40, sc: 24, hf: 40, sf: 47, want: 17, yields: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fairExcess(tc.held, tc.sc, tc.hf, tc.sf)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.yields, got > 0)
		})
	}
}
