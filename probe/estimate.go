package probe

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// estimate runs R rollouts at each of ks, at most C at once, and returns
// one point per checkpoint in the order of ks.
func (p *Prober) estimate(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, ks []int, round int) ([]Point, error) {
	R := p.cfg.Rollouts
	outs := make([]outcome, len(ks)*R) // index-addressed: [checkpoint i][rollout r]
	left := make([]int, len(ks))
	for i := range left {
		left[i] = R
	}
	var mu sync.Mutex
	z, _ := zFor(p.cfg.confidence)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Concurrency)
	for r := range R { // rollout-major: every checkpoint advances together
		for i, k := range ks {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				start := time.Now()
				o := p.rollout(gctx, tk, traj, k, r)
				p.cfg.Log.Debug("probe: rollout", "k", k, "r", r, "success", o.success, "steps", o.steps, "err", o.err, "ms", sinceMs(start))
				if gctx.Err() != nil {
					return gctx.Err() // interrupted: not a verdict
				}
				o.done = true
				outs[i*R+r] = o
				mu.Lock()
				defer mu.Unlock()
				if left[i]--; left[i] == 0 && p.cfg.progress != nil {
					p.cfg.progress(point(traj, k, outs[i*R:(i+1)*R], z, round))
				}
				return nil
			})
		}
	}
	err := g.Wait()
	pts := make([]Point, len(ks))
	for i, k := range ks {
		pts[i] = point(traj, k, outs[i*R:(i+1)*R], z, round)
	}
	return pts, err
}

// point aggregates the rollouts of checkpoint k (zero outcomes, from an
// interrupted run, count neither as verdicts nor as errors).
func point(traj *trajectory.Trajectory, k int, outs []outcome, z float64, round int) Point {
	pt := Point{K: k, Round: round}
	if k < traj.Len() {
		s := traj.Steps[k]
		pt.Action, pt.Summary = string(s.Action), replayer.Summary(s)
	}
	steps := 0
	for _, o := range outs {
		switch {
		case !o.done:
			continue
		case o.err != nil:
			pt.Errors++
			pt.LastError = o.err.Error()
		case o.success:
			pt.N++
			pt.Successes++
		default:
			pt.N++
		}
		steps += o.steps
	}
	if pt.N > 0 {
		pt.PHat = float64(pt.Successes) / float64(pt.N)
	}
	if n := pt.N + pt.Errors; n > 0 {
		pt.Steps = float64(steps) / float64(n)
	}
	pt.Lo, pt.Hi = Wilson(pt.Successes, pt.N, z)
	return pt
}
