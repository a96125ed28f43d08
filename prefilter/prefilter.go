// Package prefilter proves, before training, that recorded trajectories
// replay and pass reproducibly (docs/prefilter.md): each trajectory is replayed
// end to end R times in fresh sandboxes, its task's verifier runs after
// each replay, and it is kept only if all R pass. Every rejection carries a
// machine-readable Reason. The package has no command-line code: `rbx
// prefilter` wires it to flags, a progress bar and files.
package prefilter

import "github.com/rbx-sandbox/rbx/reason"

// Reasons lists every rejection reason (reason.Reason, docs/reasons.md)
// in report order. The names are part of the report format.
var Reasons = []reason.Reason{reason.ParseError, reason.ImageMissing, reason.PullFailed, reason.ExitCode, reason.Output, reason.Action,
	reason.VerifyFailed, reason.Timeout, reason.Flaky, reason.SessionLost, reason.Infra}

// Status is a trajectory's verdict.
type Status string

// Verdicts.
const (
	// StatusKept: all repeats replayed and passed the verifier.
	StatusKept Status = "kept"
	// StatusRejected: see the result's Reason.
	StatusRejected Status = "rejected"
	// StatusInterrupted: the run was cancelled (Ctrl-C, SIGTERM, its
	// context) before every repeat finished; the reason is
	// reason.Interrupted. Not a rejection: what a
	// cancelled repeat saw says nothing about the trajectory, and --resume
	// judges it again.
	StatusInterrupted Status = "interrupted"
	// StatusUndecided: the run stopped on an infrastructure failure (the
	// engine went away) before every repeat finished; --resume judges it
	// again.
	StatusUndecided Status = "undecided"
)
