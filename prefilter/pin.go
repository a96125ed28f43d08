package prefilter

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Pin is what the verified runs of a kept trajectory observed at one step.
// WriteKept writes it into the step's observation (marked "pinned"), so
// that later replays check every step against ground truth even when the
// source recorded no exit code or output.
type Pin struct {
	Step int `json:"step"`
	// ExitCode is the shell step's exit code, equal in every run.
	ExitCode *int `json:"exit_code,omitempty"`
	// Status is the http step's status, equal in every run.
	Status int `json:"status,omitempty"`
	// OutputSHA256 is the digest of the output under Compare, equal in
	// every run; empty when the output is not compared.
	OutputSHA256 string `json:"output_sha256,omitempty"`
	// Compare is the step's comparison after pinning.
	Compare replayer.Comparison `json:"compare,omitempty"`
	// Note says why the output is compared more loosely than asked.
	Note string `json:"note,omitempty"`
}

// looser is the order in which pinning relaxes a step's comparison when
// its output differed between verified runs.
var looser = []replayer.Comparison{replayer.CompareExact, replayer.CompareNormalized, replayer.CompareNormalizedHex, replayer.CompareIgnore}

// NondeterministicExitError is a step whose exit code (or HTTP status)
// differed between runs that all passed: the state after it is not one
// state, so the trajectory is rejected as flaky rather than pinned.
type NondeterministicExitError struct {
	Step  int
	Codes []int
}

func (e *NondeterministicExitError) Error() string {
	return fmt.Sprintf("step %d: exit code differed between passing repeats (%v): cannot pin it", e.Step, e.Codes)
}

// pinSteps computes the pins of traj from repeats that all replayed every
// step. policyFor is the comparison the replay used for a step.
func pinSteps(traj *trajectory.Trajectory, outcomes []Repeat, policyFor func(trajectory.Step) replayer.Comparison) ([]Pin, error) {
	var pins []Pin
	for i, s := range traj.Steps {
		if s.Action != trajectory.KindShell && s.Action != trajectory.KindReadFile && s.Action != trajectory.KindHTTP {
			continue
		}
		runs := make([]stepRun, 0, len(outcomes))
		for _, o := range outcomes {
			if i >= len(o.steps) || o.steps[i].digests == nil {
				return nil, fmt.Errorf("step %d: not observed by every repeat", i)
			}
			runs = append(runs, o.steps[i])
		}
		if len(runs) == 0 {
			continue
		}
		p := Pin{Step: i}
		codes := distinct(runs, func(r stepRun) int { return r.exitCode })
		if len(codes) > 1 {
			return nil, &NondeterministicExitError{Step: i, Codes: codes}
		}
		switch s.Action {
		case trajectory.KindShell:
			p.ExitCode = &codes[0]
		case trajectory.KindHTTP:
			p.Status = codes[0]
		}
		p.Compare, p.OutputSHA256, p.Note = pinOutput(policyFor(s), runs)
		pins = append(pins, p)
	}
	return pins, nil
}

// pinOutput picks the strictest comparison, starting from the one asked
// for, under which every run's output has the same digest.
func pinOutput(asked replayer.Comparison, runs []stepRun) (replayer.Comparison, string, string) {
	start := slices.Index(looser, asked)
	if start < 0 {
		start = slices.Index(looser, replayer.CompareNormalized)
	}
	for _, p := range looser[start:] {
		if p == replayer.CompareIgnore {
			break
		}
		ds := distinct(runs, func(r stepRun) string { return r.digests.Of(p) })
		if len(ds) == 1 {
			note := ""
			if p != asked {
				note = fmt.Sprintf("output differed between runs under %s: compared as %s", asked, p)
			}
			return p, ds[0], note
		}
	}
	note := ""
	if asked != replayer.CompareIgnore {
		note = "output differed between runs beyond timings and hex ids: not compared (exit code still checked)"
	}
	return replayer.CompareIgnore, "", note
}

func distinct[T comparable](runs []stepRun, f func(stepRun) T) []T {
	var out []T
	for _, r := range runs {
		if v := f(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// applyPins returns a copy of traj with each pin written into its step's
// observation; the recorded output text, if any, is kept for prompts.
func applyPins(traj *trajectory.Trajectory, pins []Pin) *trajectory.Trajectory {
	cp := *traj
	cp.Steps = slices.Clone(traj.Steps)
	for _, p := range pins {
		if p.Step < 0 || p.Step >= len(cp.Steps) {
			continue
		}
		s := &cp.Steps[p.Step]
		o := trajectory.Observation{}
		if s.Observation != nil {
			o = *s.Observation
		}
		if p.ExitCode != nil {
			o.ExitCode = p.ExitCode
		}
		if p.Status != 0 {
			o.Status = p.Status
		}
		o.OutputSHA256, o.Pinned = p.OutputSHA256, true
		o.Varied = p.Note != "" // loosened: the output differed between the verified runs
		s.Observation = &o
		if !s.Volatile && p.Compare != "" {
			s.Compare = string(p.Compare)
		}
	}
	return &cp
}

// pinned adds the pins to a kept verdict, or rejects it as flaky when a
// step's exit code differed between its passing repeats.
func pinned(res Result, it *Item, outcomes []Repeat, policyFor func(trajectory.Step) replayer.Comparison) Result {
	if res.Status != StatusKept {
		return res
	}
	pins, err := pinSteps(it.Traj, outcomes, policyFor)
	if err != nil {
		res.Status, res.Reason = StatusRejected, reason.Flaky
		res.Failure = &Failure{Message: err.Error()}
		var ne *NondeterministicExitError
		if errors.As(err, &ne) {
			idx := ne.Step
			res.Failure.Step = &idx
			res.Failure.Action = string(it.Traj.Steps[idx].Action)
			res.Failure.Summary = replayer.Summary(it.Traj.Steps[idx])
		}
		res.Detail = err.Error()
		return res
	}
	res.Pins = pins
	var loose, ignored int
	for _, p := range pins {
		switch {
		case p.Note == "":
		case p.Compare == replayer.CompareIgnore:
			ignored++
		default:
			loose++
		}
	}
	res.Detail += fmt.Sprintf("; pinned %d steps", len(pins))
	if loose+ignored > 0 {
		res.Detail += fmt.Sprintf(" (%d compared more loosely, %d output not compared: see pins)", loose, ignored)
	}
	return res
}
