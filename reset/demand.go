package reset

import (
	"math"
	"sort"
	"sync"
	"time"
)

// demandHalfLife is how fast the memory of past resets fades: a class
// (or a task's checkpoint) asked for a minute ago weighs half as much as
// one asked for now.
const demandHalfLife = 60 * time.Second

// demandFloor is the decayed count below which a class or a checkpoint
// holds nothing: nobody has asked for it lately.
const demandFloor = 0.5

// decayed is an exponentially decayed count of requests.
type decayed struct {
	v  float64
	at time.Time
}

func (d *decayed) value(now time.Time) float64 {
	if d.at.IsZero() {
		return 0
	}
	return d.v * math.Exp2(-now.Sub(d.at).Seconds()/demandHalfLife.Seconds())
}

func (d *decayed) add(now time.Time, n float64) {
	d.v, d.at = d.value(now)+n, now
}

// demand remembers where resets come from: per class and per (task, k).
type demand struct {
	mu      sync.Mutex
	classes map[string]*decayed
	points  map[point]*decayed
	now     func() time.Time
}

// point is a task's checkpoint.
type point struct {
	task string
	k    int
}

func newDemand() *demand {
	return &demand{classes: map[string]*decayed{}, points: map[point]*decayed{}, now: time.Now}
}

// observe records a reset request of n sandboxes (a group's members) of
// task at k, of class: the class counts sandboxes, the checkpoint counts
// requests (staging pays when the same checkpoint is asked for again).
func (d *demand) observe(class, task string, k, n int) {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.classes[class]
	if c == nil {
		c = &decayed{}
		d.classes[class] = c
	}
	c.add(now, float64(n))
	p := d.points[point{task, k}]
	if p == nil {
		p = &decayed{}
		d.points[point{task, k}] = p
	}
	p.add(now, 1)
}

// point is the decayed count of resets of task at k.
func (d *demand) point(task string, k int) float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p := d.points[point{task, k}]; p != nil {
		return p.value(d.now())
	}
	return 0
}

// class is the decayed count of resets of a class.
func (d *demand) class(key string) float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.classes[key]; c != nil {
		return c.value(d.now())
	}
	return 0
}

// targets splits warm idle sandboxes between the classes in proportion to
// their demand, none above limit nor above its own recent count, none for a class below demandFloor, and
// forgets what has faded (the maps stay as small as the recent demand).
func (d *demand) targets(warm, limit int) map[string]int {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for p, v := range d.points {
		if v.value(now) < demandFloor/16 {
			delete(d.points, p)
		}
	}
	type cv struct {
		key string
		v   float64
	}
	var live []cv
	total := 0.0
	for k, c := range d.classes {
		v := c.value(now)
		if v < demandFloor {
			if v < demandFloor/16 {
				delete(d.classes, k)
			}
			continue
		}
		live = append(live, cv{k, v})
		total += v
	}
	sort.Slice(live, func(i, j int) bool { return live[i].v > live[j].v })
	out := make(map[string]int, len(live))
	left := warm
	for _, c := range live {
		n := min(limit, left, int(math.Ceil(float64(warm)*c.v/total)), int(math.Ceil(c.v)))
		out[c.key] = n
		left -= n
	}
	return out
}

// share is class key's fair share of a budget of max sandboxes: max split
// in proportion to the live classes' demand (rounded up; 0 for a class
// nobody asked for lately). A class within it keeps its sandboxes for its
// own resets when another class waits; room for a waiter comes from the
// classes over theirs.
func (d *demand) share(key string, max int) int {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.classes[key]
	if c == nil {
		return 0
	}
	v := c.value(now)
	if v < demandFloor {
		return 0
	}
	total := 0.0
	for _, o := range d.classes {
		if ov := o.value(now); ov >= demandFloor {
			total += ov
		}
	}
	return int(math.Ceil(float64(max) * v / total))
}
