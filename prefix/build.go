package prefix

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Stepper is the live replay a build advances: the caller's run, which
// goes on to its checkpoint afterwards.
type Stepper interface {
	Through(ctx context.Context, k int) (*replayer.Report, error)
	Vars() map[string]string
}

// Build is the right to capture one key's entry: Lookup hands it to one
// caller, whose reset replays the prefix anyway; the other callers of the
// key wait for it.
type Build struct {
	c     *Cache
	plan  Plan
	done  chan struct{}
	once  sync.Once
	entry *Entry
}

// Entry is the entry Run stored, nil when it stored none.
func (b *Build) Entry() *Entry { return b.entry }

// Run replays [0, J) with run in sb — a fresh sandbox of the template,
// with a session shell when sessionMode — probing for background
// processes after every step, then captures the state and stores the
// entry. It returns the reports of the steps it replayed. A prefix found
// not reusable is logged and remembered, not returned: run is then at a
// step ≤ J and the caller continues live. An error is the replay's (a
// divergence) or the sandbox's; the entry is then not built.
func (b *Build) Run(ctx context.Context, sb Sandbox, sessionMode bool, traj *trajectory.Trajectory, run Stepper) (reps []*replayer.Report, err error) {
	defer b.close()
	j := b.plan.Key.J
	b.c.mu.Lock()
	build, measure, why := b.c.worth(b.plan.Key)
	b.c.mu.Unlock()
	switch {
	case measure:
		return b.replay(ctx, run)
	case !build:
		return nil, b.notWorth(why)
	}
	src, err := Begin(ctx, sb, sessionMode)
	if err != nil {
		return nil, b.settle(ctx, err)
	}
	if src.ShellKind() == "sh" {
		if i, ok := shFunctionLimit(traj, j); ok {
			return nil, b.settle(ctx, notReusable(i, "the session shell is POSIX sh, which cannot list functions, and this step may define one (bash sessions carry them)"))
		}
	}
	base, err := b.baseline(ctx, src)
	if err != nil {
		return nil, b.settle(ctx, err)
	}
	start := time.Now()
	for i := 0; i < j; i++ {
		rep, err := run.Through(ctx, i+1)
		reps = append(reps, rep)
		if err != nil {
			return reps, err
		}
		if err := src.Probe(ctx, i); err != nil {
			return reps, b.settle(ctx, err)
		}
	}
	b.c.observeReplay(b.plan.Key, time.Since(start))
	start = time.Now()
	st, err := src.Capture(ctx, base, j-1, b.c.cfg.maxEntry)
	if err != nil {
		return reps, b.settle(ctx, err)
	}
	b.c.observeCapture(b.plan.Key.Image, time.Since(start))
	var steps []replayer.StepResult
	for _, r := range reps {
		steps = append(steps, r.Steps...)
	}
	b.entry = &Entry{Key: b.plan.Key, State: st, Steps: steps, Vars: run.Vars(), Created: b.c.cfg.now(), used: b.c.cfg.now(), size: st.Size()}
	b.c.store(b.entry)
	return reps, nil
}

// baseline returns the template's fresh scan, taking it in src (before
// step 0) the first time.
func (b *Build) baseline(ctx context.Context, src *Source) (listing, error) {
	tm := b.plan.Key.template()
	b.c.mu.Lock()
	base, ok := b.c.bases[tm]
	if ok {
		base.used = b.c.cfg.now()
	}
	b.c.mu.Unlock()
	if ok {
		return base.l, nil
	}
	start := time.Now()
	l, err := src.Scan(ctx)
	if err != nil {
		return nil, err
	}
	b.c.observeCapture(b.plan.Key.Image, time.Since(start))
	size := int64(0)
	for p := range l {
		size += int64(len(p)) + 64
	}
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	if _, ok := b.c.bases[tm]; !ok {
		b.c.bases[tm] = &baseline{l: l, at: b.c.cfg.now(), size: size, used: b.c.cfg.now()}
		b.c.bytes += size
		b.c.evict()
	}
	return l, nil
}

// settle turns a failed build into its outcome: the sandbox's failures
// (and a cancelled ctx) are returned; anything else means the prefix is
// not reusable, which is remembered and logged, and the reset goes on live.
func (b *Build) settle(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, sandbox.ErrSandboxGone) || errors.Is(err, sandbox.ErrUnavailable) ||
		errors.Is(err, sandbox.ErrNotFound) || errors.Is(err, sandbox.ErrSessionLost) {
		return err
	}
	var nr *NotReusableError
	if !errors.As(err, &nr) {
		nr = &NotReusableError{Step: b.plan.Key.J - 1, Why: "capturing its state failed: " + err.Error()}
	}
	c, p := b.c, b.plan
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.buildFailed++
	v, reused := verdict{err: nr, at: c.cfg.now()}, 0
	if nr.Step >= 0 && nr.Step < p.Key.J {
		c.limits[limitKey{p.Key.template(), p.digests[nr.Step+1]}] = v
		reused = nr.Step
	} else {
		c.bad[p.Key] = v
	}
	c.logOnce(p, nr, reused)
	return nil
}

// replay replays [0, J) live, capturing nothing, and records how long it
// took: the first miss of a prefix on an image whose captures are dear
// (see worth).
func (b *Build) replay(ctx context.Context, run Stepper) (reps []*replayer.Report, err error) {
	start := time.Now()
	for i := 0; i < b.plan.Key.J; i++ {
		rep, err := run.Through(ctx, i+1)
		reps = append(reps, rep)
		if err != nil {
			return reps, err
		}
	}
	b.c.observeReplay(b.plan.Key, time.Since(start))
	return reps, nil
}

// notWorth records that the plan's prefix replays faster than it is
// captured: its lookups bypass the cache until the verdict ages out (then
// it is timed again). Said once per image.
func (b *Build) notWorth(why *NotReusableError) error {
	c, p := b.c, b.plan
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bad[p.Key] = verdict{err: why, at: c.cfg.now()}
	id := "worth " + p.Key.Image
	if !c.logged[id] {
		c.logged[id] = true
		c.cfg.log.Info("prefix cache: capturing a state is dear on this image; prefixes that replay faster live are not cached",
			"task", p.TaskID, "image", p.Key.Image, "capture", c.captureCost[p.Key.Image], "reason", why.Why)
	}
	return nil
}

// close ends the build: waiters look the key up again.
func (b *Build) close() {
	b.once.Do(func() {
		b.c.mu.Lock()
		delete(b.c.flights, b.plan.Key)
		b.c.mu.Unlock()
		close(b.done)
	})
}

// store adds an entry and evicts down to the bound.
func (c *Cache) store(e *Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if el, ok := c.idx[e.Key]; ok {
		c.drop(el)
	}
	c.idx[e.Key] = c.lru.PushFront(e)
	c.bytes += e.size
	c.st.built++
	c.evict()
}
