package replayer

import (
	"time"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Status of one replayed step.
type Status string

// Step statuses: the step's reason (StepError.Reason) says more.
const (
	// StatusOK: the step ran and matched its recording.
	StatusOK Status = "ok"
	// StatusDiverged: the step ran and differs from its recording (reason
	// exit_code or output).
	StatusDiverged Status = "diverged"
	// StatusFailed: the step could not run to completion (reason
	// action_failed, timeout, session_lost or infra).
	StatusFailed Status = "failed"
)

// Observation returns what the step did as an observation: the output
// excerpt, the exit code (an http step's status, also as Status), and the
// live-only fields.
func (r StepResult) Observation() trajectory.Observation {
	code := r.ExitCode
	o := trajectory.Observation{Output: r.Output, ExitCode: &code, Truncated: r.Truncated || int64(len(r.Output)) < r.OutputBytes,
		OutputBytes: r.OutputBytes, TimedOut: r.TimedOut, TimeoutCapped: r.TimeoutCapped, SessionLost: r.SessionLost,
		DurationMS: float64(r.Duration.Microseconds()) / 1000}
	if r.Action == trajectory.KindHTTP {
		o.Status = r.ExitCode
	}
	return o
}

// StepResult is what one replayed step did.
type StepResult struct {
	Index    int             `json:"step"`
	Action   trajectory.Kind `json:"action"`
	Summary  string          `json:"summary"`
	Status   Status          `json:"status"`
	ExitCode int             `json:"exit_code"`
	// Expected is the recorded exit code (or HTTP status), when recorded.
	Expected *int `json:"expected_exit_code,omitempty"`
	TimedOut bool `json:"timed_out,omitempty"`
	// TimeoutCapped: a live action asked for a timeout above the task's
	// step limit and ran with the limit instead (Run.Do).
	TimeoutCapped bool `json:"timeout_capped,omitempty"`
	Truncated     bool `json:"truncated,omitempty"`
	// OutputBytes is the full size of the live output.
	OutputBytes int64 `json:"output_bytes"`
	// Output is the live output, cut to an excerpt.
	Output string `json:"output,omitempty"`
	// Digests are the full live output's digests (shell, read_file and
	// http steps), for pinning.
	Digests  *Digests      `json:"output_sha256,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// SessionLost reports that this step ended the session shell, or ran
	// after it had ended (sandbox.ErrSessionLost); rbx never reopens it
	// quietly.
	SessionLost bool `json:"session_lost,omitempty"`
}

// Report describes one replay of steps [From, To).
type Report struct {
	Task       string        `json:"task"`
	Trajectory string        `json:"trajectory"`
	From       int           `json:"from"`
	To         int           `json:"to"`
	T          int           `json:"steps_total"`
	Steps      []StepResult  `json:"steps"`
	Divergence *StepError    `json:"divergence,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	// Vars are the variables bound when the replay stopped (captured values
	// may be secrets such as OTPs, so they are not serialised).
	Vars map[string]string `json:"-"`
}

// Reached is the checkpoint the sandbox is at: To when the replay
// succeeded, else the index of the failing step (its effects may be partial).
func (r *Report) Reached() int {
	if r.Divergence != nil {
		return r.Divergence.Index
	}
	return r.To
}
