package probe

import (
	"context"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// search is the Search-Learn search phase (docs/curriculum.md, "Search-Learn") aimed at the
// bottleneck rule. Each round probes up to A anchors spread uniformly over
// the domain (both ends included), in parallel. The last probed checkpoint
// with p̂ < θ, b, and the first probed one after it, u (p̂ ≥ θ), bracket
// the collapse; the next domain is the unprobed checkpoints strictly
// between them. It stops when b and u are neighbours, when b is the last
// candidate, or when nothing falls below θ. Assuming success does not
// rise again towards the start, this finds the bottleneck a sweep would,
// with about A + A·log_A(n/A) checkpoints probed instead of n.
func (p *Prober) search(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, ks []int, res *Result) error {
	lo, hi := 0, len(ks)-1 // domain: indices into ks
	for round := 1; lo <= hi; round++ {
		idx := anchors(lo, hi, p.cfg.anchors)
		probe := make([]int, len(idx))
		for i, j := range idx {
			probe[i] = ks[j]
		}
		res.Rounds = append(res.Rounds, probe)
		pts, err := p.estimate(ctx, tk, traj, probe, round)
		res.Points = append(res.Points, pts...)
		if err != nil {
			return err
		}
		res.finish()
		b := res.Bottleneck
		if b == nil {
			return nil // nothing below θ among the anchors, k = 0 included
		}
		bi := indexOf(ks, b.K)
		ui := -1
		for _, pt := range res.Points {
			if j := indexOf(ks, pt.K); j > bi && pt.Known() && (ui < 0 || j < ui) {
				ui = j
			}
		}
		if ui < 0 {
			return nil // the collapse is at the last candidate
		}
		if bi+1 == lo && ui-1 == hi {
			return nil // no verdict in this round (all errors): do not spin
		}
		lo, hi = bi+1, ui-1
	}
	return nil
}

// anchors spreads up to n indices uniformly over [lo, hi], ends included.
func anchors(lo, hi, n int) []int {
	if hi-lo+1 <= n {
		out := make([]int, 0, hi-lo+1)
		for i := lo; i <= hi; i++ {
			out = append(out, i)
		}
		return out
	}
	out := make([]int, 0, n)
	for i := range n {
		j := lo + (i*(hi-lo)+(n-1)/2)/(n-1) // rounded
		if len(out) == 0 || out[len(out)-1] != j {
			out = append(out, j)
		}
	}
	return out
}

func indexOf(ks []int, k int) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	return -1
}
