package episode

import (
	"errors"
	"strings"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrFrozen marks a call rbx ended at its own deadline because the
// sandbox did not answer (see Attribute).
var ErrFrozen = errors.New("the sandbox did not answer by the deadline")

// Attribute charges a sandbox failure (err, from a step or a verifier
// run) to the policy or the infrastructure, by this rule, first match:
//
//  1. the sandbox died at its memory limit (OOM killed), or its init
//     ended by itself (a status below 128: rbx's keep-alive loop only
//     ends when it cannot start its next sleep, the sandbox's processes
//     having taken every slot) → policy;
//  2. it is at its process limit, or the engine could not fork a
//     process in it ("resource temporarily unavailable") → policy;
//  3. the session shell ended while the sandbox runs → policy;
//  4. it is frozen (paused) → infrastructure (sandbox_frozen); it did
//     not answer by rbx's deadline (ErrFrozen) but is not paused →
//     infrastructure (sandbox_unresponsive), repaired; an action that
//     leaves the rebuilt sandbox unresponsive too is the policy's;
//  5. it was killed, stopped or removed from outside, or the engine went
//     away → infrastructure, by cause;
//  6. anything else → infrastructure (sandbox_failed), repaired; an
//     action that fails the rebuilt sandbox too is the policy's
//     (Reproduced, see Unexplained).
//
// A process inside a sandbox cannot kill its init (the kernel ignores
// those signals from inside its pid namespace), so a sandbox killed by a
// signal (status 128+n) is the outside's doing. h is what a probe saw (zero
// when the backend has no Prober or the probe failed).
func Attribute(err error, h sandbox.Health) End {
	detail := ""
	if err != nil {
		detail = err.Error()
	}
	gone := h.Gone
	if ge, ok := errors.AsType[*sandbox.GoneError](err); ok && gone == nil {
		gone = ge
	}
	switch {
	case gone != nil && gone.Cause == sandbox.CauseOOMKilled:
		return policyEnd(ReasonOOMKilled, gone.Error())
	case gone != nil && gone.Cause == sandbox.CauseExited && gone.ExitCode > 0 && gone.ExitCode < 128:
		return policyEnd(ReasonInitExited, gone.Error())
	case h.PidsExhausted():
		return policyEnd(ReasonPidsExhausted, detail)
	case gone == nil && cannotFork(err):
		return policyEnd(ReasonPidsExhausted, detail)
	case gone == nil && !h.Frozen && errors.Is(err, sandbox.ErrSessionLost):
		return policyEnd(ReasonShellExited, detail)
	case h.Frozen:
		return InfraEnd(ReasonFrozen, "the engine reports the sandbox paused: "+detail)
	case errors.Is(err, ErrFrozen) && gone == nil:
		return InfraEnd(ReasonUnresponsive, detail)
	case gone != nil:
		return InfraEnd(goneReason(gone.Cause), gone.Error())
	case errors.Is(err, sandbox.ErrUnavailable):
		return InfraEnd(ReasonEngineUnavailable, detail)
	}
	return InfraEnd(ReasonFailed, detail)
}

// cannotFork reports the kernel's EAGAIN from fork or clone, which the
// engine passes on in words when it cannot start a process in a sandbox
// at its pids limit.
func cannotFork(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, syscall.EAGAIN) || ForkFailed(err.Error())
}

// ForkFailed reports a program's words for a fork the kernel refused
// (EAGAIN at the pids limit): the engine's, bash's, dash's.
func ForkFailed(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "resource temporarily unavailable") || strings.Contains(t, "cannot fork")
}

func goneReason(cause string) string {
	switch cause {
	case sandbox.CauseKilled:
		return ReasonKilled
	case sandbox.CauseExited:
		return ReasonExited
	case sandbox.CauseRemoved:
		return ReasonRemoved
	case sandbox.CauseEngineUnavailable:
		return ReasonEngineUnavailable
	}
	return ReasonFailed
}

// Unexplained reports an infrastructure end the evidence does not pin on
// the outside (no kill, removal, pause or engine failure seen): if the
// same action fails a rebuilt sandbox the same way, the action is the
// cause (Reproduced).
func Unexplained(e End) bool {
	return e.Attribution == Infrastructure && (e.Reason == ReasonFailed || e.Reason == ReasonUnresponsive)
}
