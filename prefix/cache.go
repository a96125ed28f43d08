package prefix

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Entry is a cached state: the state after steps [0, Key.J), the live
// results of those steps in the sandbox it was captured from (a reset's
// report and prefix messages show them), and the replay's variables.
type Entry struct {
	Key     Key
	State   *State
	Steps   []replayer.StepResult
	Vars    map[string]string
	Created time.Time
	size    int64
	used    time.Time // the last hit (or Created)
}

// Cache holds entries in memory, bounded in bytes (least recently used
// first out) and in age. It creates nothing outside this process: the
// sandboxes it captures from are the caller's, so a killed process leaves
// nothing of it behind. It is safe for concurrent use.
type Cache struct {
	cfg     config
	mu      sync.Mutex
	lru     *list.List // *Entry, most recent first
	idx     map[Key]*list.Element
	bytes   int64
	flights map[Key]chan struct{}
	bad     map[Key]verdict      // not reusable, or failed to apply
	limits  map[limitKey]verdict // a step whose state cannot be carried
	bases   map[template]*baseline
	// captureCost is the last scan or capture time per image, replayCost
	// the last live replay time per prefix (see worth).
	captureCost map[string]time.Duration
	replayCost  map[Key]time.Duration
	logged      map[string]bool
	st          counters
	closed      bool
}

type verdict struct {
	err error
	at  time.Time
}

// limitKey names the prefix [0, step] of one reference on one template.
type limitKey struct {
	template
	ref string
}

type baseline struct {
	l    listing
	at   time.Time
	size int64
	used time.Time // the last build that read it
}

// New returns an empty cache.
func New(opts ...Option) (*Cache, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	return &Cache{cfg: cfg, lru: list.New(), idx: map[Key]*list.Element{}, flights: map[Key]chan struct{}{},
		bad: map[Key]verdict{}, limits: map[limitKey]verdict{}, bases: map[template]*baseline{}, logged: map[string]bool{},
		captureCost: map[string]time.Duration{}, replayCost: map[Key]time.Duration{}}, nil
}

// Plan is what a reset to checkpoint K takes from the cache: the state
// after Key.J steps (none when Key.J is 0), and why J falls short of K.
type Plan struct {
	Key     Key
	K       int
	Why     *NotReusableError
	TaskID  string
	digests []string
}

// Plan finds the longest reusable prefix of the first k steps of traj for
// the task digest and image: Limit's static rules, then what earlier
// builds found (a step that left a process running).
func (c *Cache) Plan(taskID, task, image string, traj *trajectory.Trajectory, k int) Plan {
	j, why := Limit(traj, k)
	d := prefixDigests(traj)
	tm := template{task, image}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < j; i++ {
		if v, ok := c.limits[limitKey{tm, d[i+1]}]; ok && c.fresh(v.at) {
			j, why = i, v.err.(*NotReusableError)
			break
		}
	}
	p := Plan{Key: Key{Task: task, Image: image, Ref: d[j], J: j}, K: k, Why: why, TaskID: taskID, digests: d}
	if why != nil {
		c.logOnce(p, why, j)
	}
	return p
}

// Lookup returns the plan's entry; on a miss, a Build that the caller
// must run (it becomes the key's only builder); while another caller
// builds it, it waits (bounded by ctx). A key found not reusable returns
// its *NotReusableError: replay live.
func (c *Cache) Lookup(ctx context.Context, p Plan) (*Entry, *Build, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, nil, &NotReusableError{Step: -1, Why: "the cache is closed"}
		}
		c.expire()
		if el, ok := c.idx[p.Key]; ok {
			c.lru.MoveToFront(el)
			el.Value.(*Entry).used = c.cfg.now()
			c.st.hits++
			c.mu.Unlock()
			return el.Value.(*Entry), nil, nil
		}
		if v, ok := c.bad[p.Key]; ok {
			c.st.bypassed++
			c.mu.Unlock()
			return nil, nil, v.err
		}
		if done, ok := c.flights[p.Key]; ok {
			c.mu.Unlock()
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return nil, nil, fmt.Errorf("wait for the prefix cache entry of %s at %d: %w", p.TaskID, p.Key.J, ctx.Err())
			}
		}
		done := make(chan struct{})
		c.flights[p.Key] = done
		c.st.misses++
		c.mu.Unlock()
		return nil, &Build{c: c, plan: p, done: done}, nil
	}
}

// Hit counts a reset served from e by a sandbox the caller restored
// ahead of time (a staged sandbox); false when e is past the age bound and
// must not be served any more.
func (c *Cache) Hit(e *Entry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || !c.fresh(e.Created) {
		return false
	}
	c.st.hits++
	return true
}

// Fresh reports whether e is within the age bound.
func (c *Cache) Fresh(e *Entry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed && c.fresh(e.Created)
}

// Bypass counts a reset that could take nothing from the cache.
func (c *Cache) Bypass() {
	c.mu.Lock()
	c.st.bypassed++
	c.mu.Unlock()
}

// Apply restores e into sb. When the state does not read back as captured
// (ErrApply), the entry is dropped and its key marked not reusable: sb
// must be discarded and the reset replayed live.
func (c *Cache) Apply(ctx context.Context, e *Entry, sb Sandbox) error {
	err := e.State.Apply(ctx, sb)
	if err == nil || !errors.Is(err, ErrApply) {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.applyFailed++
	if el, ok := c.idx[e.Key]; ok {
		c.drop(el)
	}
	v := &NotReusableError{Step: e.Key.J - 1, Why: "its cached state failed to apply: " + err.Error()}
	c.bad[e.Key] = verdict{err: v, at: c.cfg.now()}
	c.cfg.log.Warn("prefix cache: entry failed to apply; replaying live", "key", e.Key.Task, "j", e.Key.J, "err", err)
	return err
}

// Close drops every entry; later lookups replay live.
func (c *Cache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.lru.Init()
	clear(c.idx)
	clear(c.bases)
	c.bytes = 0
}

// expire drops what is older than the age bound. Callers hold mu.
func (c *Cache) expire() {
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		if !c.fresh(el.Value.(*Entry).Created) {
			c.drop(el)
			c.st.evicted++
		}
		el = prev
	}
	for k, v := range c.bad {
		if !c.fresh(v.at) {
			delete(c.bad, k)
		}
	}
	for k, v := range c.limits {
		if !c.fresh(v.at) {
			delete(c.limits, k)
		}
	}
	for k, b := range c.bases {
		if !c.fresh(b.at) {
			delete(c.bases, k)
			c.bytes -= b.size
		}
	}
}

// evict drops the least recently used entries and task baselines until
// the bound holds: with thousands of tasks the baselines (one listing per
// task and image) weigh as much as the entries, and both count. Callers
// hold mu.
func (c *Cache) evict() {
	for c.bytes > c.cfg.maxBytes {
		var oldBase *template
		var oldAt time.Time
		for k, b := range c.bases {
			if oldBase == nil || b.used.Before(oldAt) {
				k := k
				oldBase, oldAt = &k, b.used
			}
		}
		back := c.lru.Back()
		switch {
		case back != nil && (oldBase == nil || !oldAt.Before(back.Value.(*Entry).used)):
			c.drop(back)
			c.st.evicted++
		case oldBase != nil:
			c.bytes -= c.bases[*oldBase].size
			delete(c.bases, *oldBase)
		default:
			return
		}
	}
}

func (c *Cache) drop(el *list.Element) {
	e := c.lru.Remove(el).(*Entry)
	delete(c.idx, e.Key)
	c.bytes -= e.size
}

func (c *Cache) fresh(t time.Time) bool { return c.cfg.now().Sub(t) < c.cfg.maxAge }

// logOnce logs why a prefix stops short, once per reference, step and
// reason. Callers hold mu.
func (c *Cache) logOnce(p Plan, why *NotReusableError, reused int) {
	ref := p.Key.Ref // the prefix up to the step named, so that a reason is logged once
	if why.Step >= 0 && why.Step+1 < len(p.digests) {
		ref = p.digests[why.Step+1]
	}
	id := p.Key.Task + p.Key.Image + ref + why.Error()
	if c.logged[id] {
		return
	}
	if len(c.logged) > 65536 {
		clear(c.logged)
	}
	c.logged[id] = true
	c.cfg.log.Warn("prefix cache: prefix not reusable; later steps replay live", "task", p.TaskID, "k", p.K,
		"reused", reused, "step", why.Step, "reason", why.Why)
}
