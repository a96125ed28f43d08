package main

import (
	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// curriculumFlags are the curriculum parameters `rbx serve` and `rbx
// simulate` share (docs/curriculum.md#decision-rules); the defaults are
// the engine's.
type curriculumFlags struct {
	decision                      string
	alpha, learnAlpha             float64
	sprtAlpha, delta              float64
	theta, thetaHigh              float64
	minSuccesses, minSuccessFloor int
	window, deltaMax              int
	segments, anchors, probes     int
}

func (c *curriculumFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.decision, "decision", string(curriculum.DecisionPosterior),
		"when a checkpoint counts as mastered: posterior (P(p > θ) ≥ 1−α on recent outcomes), window (p̂ ≥ θ_high over --window) or sprt (Wald's test of θ−δ against θ+δ)")
	f.Float64Var(&c.alpha, "alpha", 0.125, "posterior rule: error rate α; move on when P(p > θ) ≥ 1−α, bottleneck when P(p < θ) ≥ 1−α")
	f.IntVar(&c.minSuccesses, "min-successes", 5, "posterior rule: s_min on a task's first checkpoint, and the most it asks later (it learns a smaller one from the checkpoints already left)")
	f.Float64Var(&c.learnAlpha, "learn-alpha", 0.002, "posterior rule: error rate of the learnt s_min (how often the checkpoints already left make it ask too few successes of a policy below θ); 0 learns nothing")
	f.IntVar(&c.minSuccessFloor, "min-successes-floor", 3, "posterior rule: the fewest successes the learnt s_min asks for")
	f.Float64Var(&c.sprtAlpha, "sprt-alpha", 0.05, "sprt rule: error rate of both decisions (move on at θ−δ, bottleneck at θ+δ)")
	f.Float64Var(&c.delta, "delta", 0.25, "sprt rule: tests p0 = θ−δ against p1 = θ+δ")
	f.Float64Var(&c.theta, "theta", 0.5, "θ: a checkpoint whose success rate is below it is a bottleneck")
	f.Float64Var(&c.thetaHigh, "theta-high", 0.625, "window rule: θ_high, the p̂ at which a checkpoint counts as mastered")
	f.IntVar(&c.window, "window", 8, "W: the recent outcomes per checkpoint the posterior and window rules look at (1..64)")
	f.IntVar(&c.deltaMax, "delta-max", 4, "δ_max: Heuristic's step back when p̂ ≫ θ")
	f.IntVar(&c.segments, "segments", 4, "M: Parallel's segments")
	f.IntVar(&c.anchors, "anchors", 8, "N_anchor: Search-Learn's anchors per SEARCH")
	f.IntVar(&c.probes, "probes", 1, "N_probe: Search-Learn's episodes per anchor")
}

// options turns the flags into engine options; a bad value is a usage
// error naming its flag.
func (c *curriculumFlags) options() ([]curriculum.Option, error) {
	named := []struct {
		flag string
		opt  curriculum.Option
	}{
		{"decision", curriculum.WithDecision(curriculum.Decision(c.decision))},
		{"alpha", curriculum.WithAlpha(c.alpha)},
		{"min-successes", curriculum.WithMinSuccesses(c.minSuccesses)},
		{"learn-alpha", curriculum.WithLearnAlpha(c.learnAlpha)},
		{"min-successes-floor", curriculum.WithMinSuccessesFloor(c.minSuccessFloor)},
		{"sprt-alpha", curriculum.WithSPRTAlpha(c.sprtAlpha)},
		{"delta", curriculum.WithDelta(c.delta)},
		{"theta", curriculum.WithTheta(c.theta)},
		{"theta-high", curriculum.WithThetaHigh(c.thetaHigh)},
		{"window", curriculum.WithWindow(c.window)},
		{"delta-max", curriculum.WithDeltaMax(c.deltaMax)},
		{"segments", curriculum.WithSegments(c.segments)},
		{"anchors", curriculum.WithAnchors(c.anchors)},
		{"probes", curriculum.WithProbes(c.probes)},
	}
	opts := make([]curriculum.Option, 0, len(named))
	// Each value alone first, so that the error names its flag: the window
	// rule and the widest thresholds leave nothing for it to clash with.
	room := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow), curriculum.WithTheta(1e-9), curriculum.WithThetaHigh(1)}
	for i, n := range named {
		alone := append(room, n.opt)
		if i == 0 { // the decision itself, with the default thresholds
			alone = []curriculum.Option{n.opt}
		}
		if _, err := curriculum.New(alone...); err != nil {
			return nil, usageError("--%s: %v", n.flag, err)
		}
		opts = append(opts, n.opt)
	}
	if _, err := curriculum.New(opts...); err != nil {
		return nil, usageError("--theta, --theta-high, --delta, --min-successes and --window: %v", err)
	}
	return opts, nil
}
