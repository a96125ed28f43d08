package prefix

import (
	"regexp"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Limit returns the longest prefix [0, j) of the first k steps of traj that
// the cache may reuse, and why it stops before k ("" when j == k): an http
// step (its response comes from the outside world: a one-time password
// must be fetched afresh), a keys step (a terminal is volatile: the
// programs running on it are not in a snapshot), a step marked volatile, or a step whose output
// differed between verified runs (a pinned observation marked varied). The
// state after such a step, and after every later step, is always replayed.
func Limit(traj *trajectory.Trajectory, k int) (int, *NotReusableError) {
	for i := 0; i < k && i < len(traj.Steps); i++ {
		s := traj.Steps[i]
		switch {
		case s.Action == trajectory.KindHTTP:
			return i, &NotReusableError{Step: i, Why: "an http step (its response comes from outside the sandbox)"}
		case s.Action == trajectory.KindKeys:
			return i, &NotReusableError{Step: i, Why: "a keys step (the terminal and its programs are not cached)"}
		case s.Volatile:
			return i, &NotReusableError{Step: i, Why: "a step marked volatile"}
		case s.Observation != nil && s.Observation.Varied:
			return i, &NotReusableError{Step: i, Why: "its output differed between verified runs"}
		}
	}
	return k, nil
}

// definesFunctions matches shell commands that may define functions or run
// code read from elsewhere (which may define them): POSIX sh cannot list
// its functions, so a prefix with such a step is not reused on sh.
var definesFunctions = regexp.MustCompile(`\(\s*\)|\bfunction\b|(^|[\s;&|(])(\.|source|eval)\s`)

// shFunctionLimit is the first shell step of [0, j) that may define a
// function, for sessions whose shell is not bash.
func shFunctionLimit(traj *trajectory.Trajectory, j int) (int, bool) {
	for i := 0; i < j; i++ {
		s := traj.Steps[i]
		if s.Action == trajectory.KindShell && definesFunctions.MatchString(s.Command) {
			return i, true
		}
	}
	return j, false
}
