// Package reason is the one vocabulary of why something stopped: a replay
// step, a prefilter verdict, a serve episode, a probe rollout. The values
// are part of the JSON outputs; docs/reasons.md says where each appears.
package reason

import "errors"

// Reason says why a step, a replay, a verdict or an episode stopped.
type Reason string

// Reasons.
const (
	// ExitCode: the live exit code (or HTTP status) differs from the
	// recorded one, or an unrecorded http step answered ≥ 400.
	ExitCode Reason = "exit_code"
	// Output: the live output differs from the recorded one under the
	// step's comparison.
	Output Reason = "output"
	// Action: the action itself could not be carried out (edit target
	// absent, capture field missing, URL or redirect outside the declared
	// services, undefined variable).
	Action Reason = "action_failed"
	// Timeout: a step, the verifier or the episode ran out of time.
	Timeout Reason = "timeout"
	// SessionLost: a step ended the sandbox's shell session (exit, errexit,
	// killing the shell's process group), so the shell state (cwd, exports,
	// functions) later steps rely on is gone. The step did it, not the
	// infrastructure: a replay diverges, a served episode terminates.
	SessionLost Reason = "session_lost"
	// Infra: the sandbox or engine failed; it says nothing about the
	// trajectory, so the same work may succeed on a fresh sandbox.
	Infra Reason = "infra"
	// Interrupted: the run was cancelled (Ctrl-C, a drain) before a verdict.
	Interrupted Reason = "interrupted"
	// VerifyFailed: the replay completed and the verifier rejected it.
	VerifyFailed Reason = "verify_failed"
	// Flaky: some repeats passed and others failed.
	Flaky Reason = "flaky"
	// ParseError: the trajectory, or the task it names, could not be loaded.
	ParseError Reason = "parse_error"
	// ImageMissing: the task's image is not present.
	ImageMissing Reason = "image_missing"
	// PullFailed: the task's image could not be pulled from its registry
	// (the registry's reason is in the failure's message).
	PullFailed Reason = "pull_failed"
	// Superseded: a candidate reference was dropped from the queue for a
	// shorter candidate of the same task (serve's reference refresh).
	Superseded Reason = "superseded"
	// Stale: a candidate reference was built on a reference version that
	// was replaced while it waited (serve's reference refresh).
	Stale Reason = "stale"
)

// IsDivergence reports whether r says the live run differs from the
// recording (ExitCode, Output), as opposed to a step that failed to run.
func (r Reason) IsDivergence() bool { return r == ExitCode || r == Output || r == SessionLost }

// IsInfra reports whether r is the infrastructure's fault rather than the
// trajectory's or the agent's (Infra only: a lost session is the step's
// doing, see SessionLost).
func (r Reason) IsInfra() bool { return r == Infra }

// Carrier is an error that knows its reason, such as replayer.StepError.
type Carrier interface {
	error
	Why() Reason
}

// Of returns the reason of the first Carrier in err's chain.
func Of(err error) (Reason, bool) {
	var c Carrier
	if errors.As(err, &c) {
		return c.Why(), true
	}
	return "", false
}

// IsInfra reports whether err is a failure of the infrastructure: its
// reason is an infrastructure one, or it carries no reason at all (the
// replayer gives every failure of a trajectory or an action a reason, so
// what has none came from the sandbox, the engine or the caller). A nil
// error is no failure.
func IsInfra(err error) bool {
	if err == nil {
		return false
	}
	r, ok := Of(err)
	return !ok || r.IsInfra()
}
