// Package prefilter proves, before training, that recorded trajectories
// replay and pass reproducibly (DESIGN.md §5): each trajectory is replayed
// end to end R times in fresh sandboxes, its task's verifier runs after
// each replay, and it is kept only if all R pass. Every rejection carries a
// machine-readable Reason. The package has no command-line code: `rbx
// prefilter` wires it to flags, a progress bar and files.
package prefilter

// Reason says why a trajectory was rejected. The names are part of the
// report format.
type Reason string

// Rejection reasons.
const (
	// ReasonParse: the trajectory, or the task it names, could not be loaded.
	ReasonParse Reason = "parse_error"
	// ReasonImageMissing: the task's image is not present locally.
	ReasonImageMissing Reason = "image_missing"
	// ReasonStepFailed: a step's exit code (or HTTP status) differed from
	// the recording, or the action could not be carried out.
	ReasonStepFailed Reason = "step_failed"
	// ReasonDiverged: a step's output differed from the recording.
	ReasonDiverged Reason = "diverged"
	// ReasonVerifyFailed: the replay completed and the verifier rejected it.
	ReasonVerifyFailed Reason = "verify_failed"
	// ReasonTimeout: a step, the verifier or the episode ran out of time.
	ReasonTimeout Reason = "timeout"
	// ReasonFlaky: some repeats passed and others failed.
	ReasonFlaky Reason = "flaky"
	// ReasonInfra: the engine or sandbox failed, after the resetter's
	// retries on fresh sandboxes; it says nothing about the trajectory, so
	// --resume judges it again.
	ReasonInfra Reason = "infra_error"
)

// Reasons lists every reason in report order.
var Reasons = []Reason{ReasonParse, ReasonImageMissing, ReasonStepFailed, ReasonDiverged,
	ReasonVerifyFailed, ReasonTimeout, ReasonFlaky, ReasonInfra}

// Status is a trajectory's verdict.
type Status string

// Verdicts.
const (
	// StatusKept: all repeats replayed and passed the verifier.
	StatusKept Status = "kept"
	// StatusRejected: see the result's Reason.
	StatusRejected Status = "rejected"
	// StatusInterrupted: the run was cancelled (Ctrl-C, SIGTERM, its
	// context) before every repeat finished. Not a rejection: what a
	// cancelled repeat saw says nothing about the trajectory, and --resume
	// judges it again.
	StatusInterrupted Status = "interrupted"
	// StatusUndecided: the run stopped on an infrastructure failure (the
	// engine went away) before every repeat finished; --resume judges it
	// again.
	StatusUndecided Status = "undecided"
)
