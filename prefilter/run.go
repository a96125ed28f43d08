package prefilter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrEngine wraps the infrastructure failure that stopped a run (the engine
// became unavailable): the verdicts so far are in the report, the rest are
// undecided.
var ErrEngine = errors.New("prefilter stopped: infrastructure failure")

// runner is one Run's state. Results and outcomes are index-addressed by
// item; mu guards the counters and the task runs.
type runner struct {
	cfg      config
	rt       pool.Creator
	rp       *replayer.Replayer
	items    []*Item
	results  []Result
	outcomes [][]Repeat
	finished []int // repeats finished per item
	mu       sync.Mutex
	tasks    map[string]*taskRun
	done     int
	total    int
	progMu   sync.Mutex
	closing  sync.WaitGroup
}

// Run judges items: each loadable trajectory is replayed end to end and
// verified in fresh sandboxes created on rt, Repeats times, with at most
// Concurrency repeats at once. It returns the report, complete or partial:
// when ctx is cancelled, in-flight repeats stop, every sandbox is removed
// and the unfinished trajectories are interrupted (the error is ctx's); when
// the engine becomes unavailable the run stops the same way with ErrEngine
// and they are undecided.
func Run(ctx context.Context, rt pool.Creator, rp *replayer.Replayer, items []*Item, opts ...Option) (*Report, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	n := len(items)
	r := &runner{cfg: cfg, rt: rt, rp: rp, items: items, results: make([]Result, n),
		outcomes: make([][]Repeat, n), finished: make([]int, n), tasks: map[string]*taskRun{}}
	rep := &Report{Version: ReportVersion, Started: time.Now(), Repeats: cfg.repeats, Concurrency: cfg.concurrency}
	pending := r.prepare()
	runErr := r.checkImages(ctx, pending)
	if runErr == nil {
		runErr = r.fanOut(ctx, r.stillPending(pending))
	}
	r.closeTasks(ctx)
	for i := range r.items {
		if r.results[i].Status == "" { // stopped before it was decided
			r.results[i] = undecided(r.items[i], r.outcomes[i])
			if ctx.Err() != nil {
				r.results[i].Status, r.results[i].Reason = StatusInterrupted, reason.Interrupted
			}
		}
	}
	rep.Results, rep.Pools = r.results, r.poolSummaries()
	rep.Duration = time.Since(rep.Started)
	rep.Interrupted = ctx.Err() != nil
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	rep.summarise()
	return rep, runErr
}

// prepare settles what needs no sandbox (resumed verdicts, load errors) and
// returns the indices of the items left to run.
func (r *runner) prepare() []int {
	prev := map[string]Result{}
	if r.cfg.previous != nil {
		for _, res := range r.cfg.previous.Results {
			if res.Decided() {
				prev[res.Key.String()] = res
			}
		}
	}
	var pending []int
	for i, it := range r.items {
		r.outcomes[i] = make([]Repeat, r.cfg.repeats)
		if res, ok := prev[it.Key.String()]; ok {
			res.Resumed = true
			r.results[i] = res
			continue
		}
		if it.Err != nil {
			r.results[i] = rejected(it, reason.ParseError, &Failure{Message: it.Err.Error()})
			continue
		}
		pending = append(pending, i)
	}
	r.total = len(r.items) * r.cfg.repeats
	r.done = r.total - len(pending)*r.cfg.repeats
	for i := range r.items {
		if r.results[i].Status != "" {
			r.announce(i)
		}
	}
	return pending
}

// announce reports a verdict reached without running repeats.
func (r *runner) announce(i int) {
	res := r.results[i]
	r.report(Progress{Done: r.done, Total: r.total, Decided: &res})
}

// stillPending drops the items checkImages decided.
func (r *runner) stillPending(idx []int) []int {
	var out []int
	for _, i := range idx {
		if r.results[i].Status == "" {
			out = append(out, i)
		}
	}
	return out
}

// fanOut runs every (trajectory, repeat) pair of the pending items, grouped
// by task so that one task's pool serves its repeats back to back.
func (r *runner) fanOut(ctx context.Context, pending []int) error {
	order := byTask(r.items, pending)
	for _, i := range order {
		r.taskRunFor(i).left += r.cfg.repeats
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.cfg.concurrency)
	for _, i := range order {
		for k := range r.cfg.repeats {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error { return r.repeat(gctx, i, k) })
		}
	}
	return g.Wait()
}

// repeat runs repeat k of item i and records it.
func (r *runner) repeat(ctx context.Context, i, k int) error {
	tr := r.taskRunFor(i)
	res, err := tr.resetter(r)
	var out Repeat
	var fatal error
	if err != nil {
		out = Repeat{Reason: reason.Infra, Failure: &Failure{Message: err.Error()}}
	} else {
		out, fatal = r.runRepeat(ctx, res, r.items[i])
	}
	r.mu.Lock()
	r.outcomes[i][k] = out
	r.finished[i]++
	complete := r.finished[i] == r.cfg.repeats && !anyCancelled(r.outcomes[i])
	if complete {
		r.results[i] = pinned(decide(r.items[i], r.outcomes[i]), r.items[i], r.outcomes[i], r.rp.ComparisonFor)
	}
	r.done++
	p := Progress{Done: r.done, Total: r.total}
	if complete {
		res := r.results[i]
		p.Decided = &res
	}
	r.mu.Unlock()
	r.release(tr)
	r.report(p)
	if fatal != nil {
		return fmt.Errorf("%w: %w", ErrEngine, fatal)
	}
	return nil
}

func (r *runner) report(p Progress) {
	if r.cfg.progress == nil {
		return
	}
	r.progMu.Lock()
	defer r.progMu.Unlock()
	r.cfg.progress(p)
}

func anyCancelled(rs []Repeat) bool {
	for _, r := range rs {
		if r.cancelled {
			return true
		}
	}
	return false
}

// fatalErr reports whether err means the engine itself is gone, so that
// further repeats would only fail the same way.
func fatalErr(err error) bool {
	return errors.Is(err, sandbox.ErrUnavailable)
}
