package sandbox

import (
	"fmt"
	"time"
)

// Defaults applied by Spec.WithDefaults.
const (
	DefaultWorkdir     = "/workspace"
	DefaultStepTimeout = 120 * time.Second
	DefaultOutputCap   = 1 << 20 // 1 MiB per step
	DefaultMemory      = 1 << 30 // 1 GiB
	DefaultCPUs        = 1.0
	DefaultPids        = 512
)

// Network policies.
const (
	NetworkNone   = "none"
	NetworkBridge = "bridge"
)

// Spec describes a sandbox to create. The zero value of each field means
// "the safe default" (see WithDefaults).
type Spec struct {
	// Image is the image reference (ignored by the local backend).
	Image string
	// Workdir is the directory commands start in; created if missing.
	Workdir string
	// Env is set for every command.
	Env map[string]string
	// Limits bound the sandbox's resources.
	Limits Limits
	// Network is "none" (default), "bridge", or the name of a network the
	// caller created.
	Network string
	// Labels are attached to the sandbox in addition to the rbx.* labels the
	// backend adds itself, and can be selected on (Runtime.List). Keys and
	// values must be legal on every backend (see ValidLabelKey,
	// ValidLabelValue): no "/" in values, at most 63 characters.
	Labels map[string]string
	// Annotations are attached to the sandbox and read back by List, but
	// cannot be selected on; values are free text (paths, descriptions).
	Annotations map[string]string
	// Mode is the default execution mode of Exec.
	Mode Mode
	// StepTimeout is the default per-command timeout.
	StepTimeout time.Duration
	// OutputCap is the number of output bytes kept per command.
	OutputCap int
	// CapAdd lists Linux capabilities granted on top of the minimal default
	// set; everything else is dropped.
	CapAdd []string
}

// Limits bound a sandbox's resources.
type Limits struct {
	CPUs        float64
	MemoryBytes int64
	Pids        int64
}

// WithDefaults returns a copy of s with every unset field given its default.
func (s Spec) WithDefaults() Spec {
	if s.Workdir == "" {
		s.Workdir = DefaultWorkdir
	}
	if s.Network == "" {
		s.Network = NetworkNone
	}
	if s.Mode == "" {
		s.Mode = ModeSession
	}
	if s.StepTimeout <= 0 {
		s.StepTimeout = DefaultStepTimeout
	}
	if s.OutputCap <= 0 {
		s.OutputCap = DefaultOutputCap
	}
	if s.Limits.CPUs <= 0 {
		s.Limits.CPUs = DefaultCPUs
	}
	if s.Limits.MemoryBytes <= 0 {
		s.Limits.MemoryBytes = DefaultMemory
	}
	if s.Limits.Pids <= 0 {
		s.Limits.Pids = DefaultPids
	}
	return s
}

// Validate reports the first field of s that cannot be honoured.
func (s Spec) Validate() error {
	if !s.Mode.Valid() {
		return fmt.Errorf("%w: mode %q: expected %q or %q", ErrInvalidSpec, s.Mode, ModeSession, ModeExec)
	}
	if len(s.Workdir) == 0 || s.Workdir[0] != '/' {
		return fmt.Errorf("%w: workdir %q: expected an absolute path", ErrInvalidSpec, s.Workdir)
	}
	return validateLabels(s.Labels, s.Annotations)
}
