package prefilter

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// taskRun is one task's share of a run: its own Resetter (so its warm pool
// can be closed as soon as the task's last repeat is done, instead of
// refilling until the end of the run) and the repeats it has left.
type taskRun struct {
	tk    *task.Task
	left  int
	once  sync.Once
	res   *reset.Resetter
	err   error
	stats []pool.Stats
	size  int
	close sync.Once
}

func taskKey(tk *task.Task) string { return filepath.Clean(tk.Path) + "\x00" + reset.Key(tk) }

// taskRunFor returns the task run of item i, creating it on first use.
func (r *runner) taskRunFor(i int) *taskRun {
	tk := r.items[i].Task
	r.mu.Lock()
	defer r.mu.Unlock()
	key := taskKey(tk)
	tr, ok := r.tasks[key]
	if !ok {
		tr = &taskRun{tk: tk}
		r.tasks[key] = tr
	}
	return tr
}

// resetter creates the task's Resetter on first use. Its pool size follows
// the concurrency (see WithPoolSize): at C = 1 one sandbox is created
// while the previous repeat replays; at C ≥ 2 the workers already overlap
// creation with each other's replays, and on a small machine a pool's
// refills (one per acquire, the last ones never used) only compete with
// them for the CPU, so sandboxes are created on demand.
func (tr *taskRun) resetter(r *runner) (*reset.Resetter, error) {
	tr.once.Do(func() {
		r.mu.Lock()
		size := r.cfg.poolSize
		if size < 0 {
			size = min(defaultPoolSize(r.cfg.concurrency), tr.left)
		}
		r.mu.Unlock()
		tr.size = size
		tr.res, tr.err = reset.New(r.rt, r.rp, reset.WithRetries(r.cfg.retries), reset.WithLogger(r.cfg.log), reset.WithBudget(r.cfg.budget),
			reset.WithPoolOptions(pool.WithSize(size), pool.WithConcurrency(r.cfg.concurrency), pool.WithLogger(r.cfg.log)))
		if tr.err == nil {
			tr.err = tr.res.Warm(tr.tk)
		}
	})
	return tr.res, tr.err
}

// release counts one repeat of tr done and closes its pool after the last
// one, in the background: removing idle sandboxes must not hold a worker.
func (r *runner) release(tr *taskRun) {
	r.mu.Lock()
	tr.left--
	last := tr.left == 0
	r.mu.Unlock()
	if last {
		r.closing.Add(1)
		go func() {
			defer r.closing.Done()
			r.closeTask(context.Background(), tr)
		}()
	}
}

func (r *runner) closeTask(ctx context.Context, tr *taskRun) {
	tr.close.Do(func() {
		if tr.res == nil {
			return
		}
		tr.stats = tr.res.Stats()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := tr.res.Close(cctx); err != nil {
			r.cfg.log.Warn("prefilter: close pool", "task", tr.tk.ID, "err", err)
		}
	})
}

// closeTasks closes every task's Resetter (removing every sandbox, also
// after a cancellation) and waits for the background closes.
func (r *runner) closeTasks(ctx context.Context) {
	r.mu.Lock()
	trs := make([]*taskRun, 0, len(r.tasks))
	for _, tr := range r.tasks {
		trs = append(trs, tr)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, tr := range trs {
		wg.Go(func() { r.closeTask(ctx, tr) })
	}
	wg.Wait()
	r.closing.Wait()
}

func (r *runner) poolSummaries() []PoolSummary {
	var out []PoolSummary
	for _, i := range byTask(r.items, allIndices(len(r.items))) {
		if r.items[i].Task == nil {
			continue
		}
		tr, ok := r.tasks[taskKey(r.items[i].Task)]
		if !ok || tr.stats == nil {
			continue
		}
		s := PoolSummary{Task: tr.tk.ID, Size: tr.size}
		for _, st := range tr.stats {
			s.Created, s.Discarded, s.Failed = s.Created+st.Created, s.Discarded+st.Discarded, s.Failed+st.Failed
		}
		out = append(out, s)
		tr.stats = nil // once per task
	}
	return out
}

// checkImages checks each pending task's image once, concurrently: the
// trajectories of a task without its image are rejected with image_missing
// before any pool is created (a pool would retry creating forever).
func (r *runner) checkImages(ctx context.Context, pending []int) error {
	check := r.cfg.imageCheck
	if check == nil {
		check = r.probe
	}
	groups := map[string][]int{}
	var keys []string
	for _, i := range pending {
		k := taskKey(r.items[i].Task)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	errs := make([]error, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.concurrency)
	for j, k := range keys {
		tk := r.items[groups[k][0]].Task
		g.Go(func() error {
			if tk.Image == "" && tk.Build != nil && r.cfg.imageCheck == nil {
				// The default check only looks; rbx prefilter's builds it.
				errs[j] = fmt.Errorf("%w: task %s builds its image from a Dockerfile: give WithImageCheck a check that builds it", sandbox.ErrImageMissing, tk.ID)
				return nil
			}
			errs[j] = check(gctx, tk)
			if fatalErr(errs[j]) {
				return fmt.Errorf("%w: check image of task %s: %w", ErrEngine, tk.ID, errs[j])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for j, k := range keys {
		why := reason.ImageMissing
		switch {
		case errs[j] == nil:
			continue
		case errors.Is(errs[j], sandbox.ErrPullFailed):
			why = reason.PullFailed
		case !errors.Is(errs[j], sandbox.ErrImageMissing):
			why = reason.Infra
		}
		for _, i := range groups[k] {
			r.results[i] = rejected(r.items[i], why, &Failure{Message: errs[j].Error()})
			r.done += r.cfg.repeats
			r.announce(i)
		}
	}
	return nil
}

// probe is the default image check: create one sandbox and remove it.
func (r *runner) probe(ctx context.Context, tk *task.Task) error {
	lease, err := r.cfg.budget.Acquire(ctx, 1)
	if err != nil {
		return err
	}
	defer lease.Close() // after the removal below
	sb, err := r.rt.Create(ctx, provision.Spec(tk))
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := sb.Remove(rctx); err != nil {
		r.cfg.log.Warn("prefilter: remove probe sandbox", "task", tk.ID, "err", err)
	}
	return nil
}

func defaultPoolSize(concurrency int) int {
	if concurrency == 1 {
		return 1
	}
	return 0
}
