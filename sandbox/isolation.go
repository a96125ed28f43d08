package sandbox

import (
	"context"
	"fmt"
	"strings"
)

// Isolation is what separates a backend's sandboxes from the host, as the
// engine reports it (rbx version, /healthz).
type Isolation struct {
	// OCIRuntime is the runtime sandboxes run on ("runc", "runsc"...),
	// Available the engine's.
	OCIRuntime string   `json:"oci_runtime"`
	Available  []string `json:"available_runtimes,omitempty"`
	// Seccomp is the engine's default seccomp profile ("default",
	// "builtin", a path; "" when the engine applies none).
	Seccomp string `json:"seccomp"`
	// UserNS says whether the engine remaps container root to an
	// unprivileged host user.
	UserNS bool `json:"user_namespace"`
	// Rootless says whether the engine itself runs without root.
	Rootless bool `json:"rootless"`
	// DiskBound is how a sandbox's disk writes are bounded, and why.
	DiskBound string `json:"disk_bound,omitempty"`
}

// String renders the report on one line.
func (i Isolation) String() string {
	seccomp := i.Seccomp
	if seccomp == "" {
		seccomp = "none"
	}
	s := fmt.Sprintf("runtime %s (available: %s); seccomp %s; user namespace %s; rootless engine %s; capabilities %s + the task's allowed cap_add; no-new-privileges",
		i.OCIRuntime, strings.Join(i.Available, ", "), seccomp, onOff(i.UserNS), onOff(i.Rootless), strings.Join(DefaultCaps, " "))
	if i.DiskBound != "" {
		s += "; disk bound " + i.DiskBound
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// IsolationReporter is implemented by runtimes that can say what
// isolation their sandboxes get.
type IsolationReporter interface {
	Isolation(ctx context.Context) (Isolation, error)
}
