package policy

import (
	"context"
	"math/rand/v2"
	"path"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Noisy plays the reference suffix but corrupts step i with probability
// Noise.P(i), so its bottleneck is known in advance: with step j corrupted
// often, success collapses for every checkpoint k ≤ j and not after.
type Noisy struct {
	Noise Noise
}

// Name returns "noisy".
func (Noisy) Name() string { return "noisy" }

// Start returns an agent seeded by the episode: the same seed and k corrupt
// the same steps.
func (n Noisy) Start(_ context.Context, ep Episode) (Agent, error) {
	rng := rand.New(rand.NewPCG(ep.Seed, uint64(ep.K)))
	workdir := provision.Spec(ep.Task).Workdir
	return &suffix{steps: ep.Trajectory.Steps, next: ep.Next(), alter: func(i int, s trajectory.Step) trajectory.Step {
		if p := n.Noise.P(i); p > 0 && rng.Float64() < p {
			return Corrupt(s, workdir)
		}
		return s
	}}, nil
}

// CleanupCommand is what a corrupted shell, read_file or noop step runs: a
// clean-up meant for a build directory, run in the working tree instead.
const CleanupCommand = "rm -rf -- ./* ./.[!.]*"

// Corrupt returns the realistic failure of step s used by the noisy policy,
// chosen per action kind so that it breaks the task's outcome:
//
//   - write_file: the file lands in a scripts/ directory next to where it
//     belongs (the seed's ./run.sh written as scripts/run.sh); whatever
//     reads, runs or edits it at the right path later fails.
//   - edit_file: the same edit aimed at that misplaced path: it fails (no
//     such file) and the real file stays unedited.
//   - http: the request goes to a wrong endpoint (a path that does not
//     exist, so 404): nothing is captured, and steps that use the captured
//     value fail.
//   - shell, read_file, noop: a clean-up run in the wrong directory,
//     CleanupCommand in the workdir: the work done so far is gone, and so is
//     what the verifier checks.
//
// Later reference steps still run; they now act on a broken state.
func Corrupt(s trajectory.Step, workdir string) trajectory.Step {
	switch s.Action {
	case trajectory.KindWriteFile, trajectory.KindEditFile:
		c := s
		c.Path = misplaced(s.Path)
		return c
	case trajectory.KindHTTP:
		c := s
		c.URL = s.URL + ".rbx-wrong-endpoint"
		return c
	}
	return trajectory.Step{Action: trajectory.KindShell, Command: CleanupCommand, Cwd: workdir}
}

// misplaced puts p in a scripts/ directory beside where it belongs.
func misplaced(p string) string {
	dir, base := path.Split(p)
	return path.Join(dir, "scripts", base)
}
