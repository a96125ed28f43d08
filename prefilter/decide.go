package prefilter

import (
	"fmt"
	"slices"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
)

// base is the part of a result known before any repeat runs.
func base(it *Item) Result {
	res := Result{Key: it.Key}
	if it.Traj != nil {
		res.T = it.Traj.Len()
		for i, s := range it.Traj.Steps {
			if s.Volatile {
				res.Volatile = append(res.Volatile, i)
			}
		}
	}
	if it.Task != nil {
		res.Task, res.TaskFile = it.Task.ID, it.Task.Path
	}
	return res
}

// rejected is a verdict reached without running repeats (parse error,
// missing image).
func rejected(it *Item, why reason.Reason, f *Failure) Result {
	res := base(it)
	res.Status, res.Reason, res.Failure, res.Detail = StatusRejected, why, f, f.Message
	return res
}

// undecided is an item whose repeats did not all finish: what ran is kept.
func undecided(it *Item, outcomes []Repeat) Result {
	var done []Repeat
	for _, o := range outcomes {
		if o.Duration > 0 && !o.cancelled {
			done = append(done, o)
		}
	}
	res := base(it)
	fill(&res, it, done)
	res.Status, res.Detail = StatusUndecided, fmt.Sprintf("interrupted after %d of %d repeats", len(done), len(outcomes))
	return res
}

// decide aggregates the repeats of one trajectory. Kept only if all
// passed. A trajectory that passed some repeats and failed others for
// reasons of its own is flaky; infrastructure failures decide nothing
// about it, so they win over passes (infra, judged again on
// --resume); otherwise the first failing repeat gives the reason.
func decide(it *Item, outcomes []Repeat) Result {
	res := base(it)
	fill(&res, it, outcomes)
	var first, firstInfra *Repeat
	for i := range outcomes {
		o := &outcomes[i]
		if !o.Passed && o.Failure == nil {
			o.Failure = &Failure{Message: string(o.Reason)}
		}
		switch {
		case o.Passed:
		case o.Reason.IsInfra():
			if firstInfra == nil {
				firstInfra = o
			}
		case first == nil:
			first = o
		}
	}
	switch {
	case first != nil && res.Passed > 0:
		res.Status, res.Reason, res.Failure = StatusRejected, reason.Flaky, first.Failure
		res.Detail = fmt.Sprintf("passed %d of %d repeats; first failure: %s: %s", res.Passed, len(outcomes), first.Reason, first.Failure.Message)
	case first != nil:
		res.Status, res.Reason, res.Failure = StatusRejected, first.Reason, first.Failure
		res.Detail = first.Failure.Message
	case firstInfra != nil:
		res.Status, res.Reason, res.Failure = StatusRejected, firstInfra.Reason, firstInfra.Failure
		res.Detail = firstInfra.Failure.Message
	default:
		res.Status = StatusKept
		res.Detail = fmt.Sprintf("passed %d of %d repeats", res.Passed, len(outcomes))
	}
	return res
}

// fill records the repeats and what they measured: passes, the deepest
// checkpoint, per-step medians, nondeterministic steps.
func fill(res *Result, it *Item, outcomes []Repeat) {
	res.Repeats = outcomes
	var durs []time.Duration
	reached := 0
	for _, o := range outcomes {
		if o.Passed {
			res.Passed++
		}
		reached = max(reached, o.Reached)
		durs = append(durs, o.Duration)
	}
	res.Duration = median(durs)
	for k := reached; k >= 0; k-- {
		if it.Traj.ValidCheckpoint(k) {
			res.Deepest = k
			break
		}
	}
	res.Steps, res.Nondeterministic = stepStats(it, outcomes)
}

// stepStats computes each step's median duration, and lists the steps whose
// normalised output differed between repeats that ran them.
func stepStats(it *Item, outcomes []Repeat) ([]StepStat, []int) {
	var stats []StepStat
	var nondet []int
	for i, s := range it.Traj.Steps {
		var durs []time.Duration
		var outs []string
		for _, o := range outcomes {
			if i < len(o.steps) {
				durs = append(durs, o.steps[i].dur)
				outs = append(outs, replayer.Normalize(o.steps[i].output))
			}
		}
		if len(durs) == 0 {
			break
		}
		stats = append(stats, StepStat{Index: i, Action: string(s.Action), Median: median(durs), Runs: len(durs)})
		if len(slices.Compact(slices.Sorted(slices.Values(outs)))) > 1 {
			nondet = append(nondet, i)
		}
	}
	return stats, nondet
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// byTask orders item indices so that one task's items are adjacent (its
// pool serves them back to back), the heaviest tasks first — by their
// trajectories' total step count — and within a task the longest
// trajectories first. Starting the longest work first keeps the run from
// ending on one long trajectory while the other slots sit idle.
func byTask(items []*Item, idx []int) []int {
	weight := map[string]int{}
	first := map[string]int{}
	for _, i := range idx {
		k := groupKey(items[i])
		if _, ok := first[k]; !ok {
			first[k] = len(first)
		}
		weight[k] += steps(items[i])
	}
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int {
		ka, kb := groupKey(items[a]), groupKey(items[b])
		switch {
		case ka == kb:
			return steps(items[b]) - steps(items[a])
		case weight[ka] != weight[kb]:
			return weight[kb] - weight[ka]
		}
		return first[ka] - first[kb]
	})
	return out
}

func groupKey(it *Item) string {
	if it.Task == nil {
		return ""
	}
	return taskKey(it.Task)
}

func steps(it *Item) int {
	if it.Traj == nil {
		return 0
	}
	return it.Traj.Len()
}

func allIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
