package episode

// Attribution is who an episode's end is charged to (docs/durability.md).
type Attribution string

const (
	// Policy: the policy's own action ended the episode (it exhausted its
	// processes or memory, ended its shell, or its action fails every
	// sandbox it runs in). A failure with reward 0; it reaches the
	// curriculum.
	Policy Attribution = "policy"
	// Task: the task's reference or verifier is broken. No reward; never
	// the policy's failure; retrying does not help.
	Task Attribution = "task"
	// Infrastructure: anything else (a sandbox killed, removed or frozen,
	// the engine or rbx restarted). Never the policy's failure; a new
	// episode may succeed.
	Infrastructure Attribution = "infrastructure"
)

// Reasons an End names.
const (
	ReasonOOMKilled     = "oom_killed"     // policy: the sandbox died at its memory limit
	ReasonPidsExhausted = "pids_exhausted" // policy: the sandbox is at its process limit
	ReasonShellExited   = "shell_exited"   // policy: its action ended the session shell
	ReasonReproduced    = "reproduced"     // policy: the action failed a rebuilt sandbox too
	ReasonInitExited    = "init_exited"    // policy: the sandbox's init ended by itself (status < 128)

	ReasonKilled            = "sandbox_killed"       // infrastructure: killed from outside
	ReasonExited            = "sandbox_exited"       // infrastructure: stopped
	ReasonRemoved           = "sandbox_removed"      // infrastructure: removed, pod deleted or evicted
	ReasonEngineUnavailable = "engine_unavailable"   // infrastructure: the engine stopped answering
	ReasonFrozen            = "sandbox_frozen"       // infrastructure: paused past a deadline
	ReasonUnresponsive      = "sandbox_unresponsive" // infrastructure: no answer by rbx's deadline
	ReasonFailed            = "sandbox_failed"       // infrastructure: any other sandbox failure
	ReasonServerRestarted   = "server_restarted"     // infrastructure: rbx restarted and could not rebuild
	ReasonNotReplayable     = "not_replayable"       // infrastructure: a rebuild saw an observation differ
	ReasonRepairFailed      = "repair_failed"        // infrastructure: a rebuild failed or ran out of tries
	ReasonCancelled         = "request_cancelled"    // infrastructure: the client went away mid-call

	ReasonReferenceBroken = "reference_broken" // task: the reference no longer replays to k
	ReasonVerifierBroken  = "verifier_broken"  // task: the verifier cannot run on the reference's end state
)

// End is why an episode ended other than by a verdict of its verifier,
// or why a call on it failed, with the evidence.
type End struct {
	Attribution Attribution `json:"attribution"`
	Reason      string      `json:"reason"`
	// Detail is the evidence in words: the engine's state, the error.
	Detail string `json:"detail,omitempty"`
	// Retryable: a new episode at the same checkpoint may succeed (true
	// for infrastructure ends only).
	Retryable bool `json:"retryable"`
}

// Repairable reports an end rbx tries to repair by rebuilding the
// sandbox: an infrastructure fault that is not a rebuild's own failure.
func (e End) Repairable() bool {
	return e.Attribution == Infrastructure && e.Reason != ReasonNotReplayable && e.Reason != ReasonRepairFailed
}

func policyEnd(reason, detail string) End {
	return End{Attribution: Policy, Reason: reason, Detail: detail}
}

// TaskEnd is an end charged to the task.
func TaskEnd(reason, detail string) End {
	return End{Attribution: Task, Reason: reason, Detail: detail}
}

// InfraEnd is an end charged to the infrastructure (retryable).
func InfraEnd(reason, detail string) End {
	return End{Attribution: Infrastructure, Reason: reason, Detail: detail, Retryable: true}
}

// Reproduced is the end of an action that failed a rebuilt sandbox the
// way it failed the first: the action, not the infrastructure, is the
// cause.
func Reproduced(first End) End {
	return policyEnd(ReasonReproduced, "the action failed a rebuilt sandbox too ("+first.Reason+"): "+first.Detail)
}
