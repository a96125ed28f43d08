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
	// DefaultDisk bounds the writable layer where the storage driver can
	// (see DiskBound), and each tmpfs of a read-only root.
	DefaultDisk = 10 << 30 // 10 GiB
	// DefaultFileSize is the fsize ulimit: no single file grows past it,
	// whatever the storage driver.
	DefaultFileSize = 4 << 30 // 4 GiB
	// DefaultNoFile is the nofile ulimit (soft and hard).
	DefaultNoFile = 4096
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
	// User runs every command as "uid[:gid]" or "name[:group]" (a name is
	// looked up in the image's /etc/passwd). Empty means the image's user,
	// root for rbx's images. A numeric uid without a group runs with the
	// group of the same number, never root's group. The workdir is made the
	// user's at create.
	User string
	// ReadOnlyRoot mounts the root filesystem read-only; the workdir and
	// /tmp are then the only writable paths, each a tmpfs of
	// Limits.DiskBytes (see docs/isolation.md).
	ReadOnlyRoot bool
	// Recycle prepares the sandbox for in-place recycling (see Recycler):
	// the backend mounts its trusted agent and runs it as PID 1. A backend
	// that cannot refuses it with an error wrapping ErrUnsupported; with
	// ReadOnlyRoot it is refused with ErrInvalidSpec.
	Recycle bool
}

// RefuseRecycle is what a backend without a recycling agent returns from
// Create for a spec asking for one; nil when it does not.
func RefuseRecycle(backend string, s Spec) error {
	if !s.Recycle {
		return nil
	}
	return fmt.Errorf("%w: recycle: the %s backend has no recycling agent", ErrUnsupported, backend)
}

// Limits bound a sandbox's resources.
type Limits struct {
	CPUs        float64
	MemoryBytes int64
	Pids        int64
	// DiskBytes bounds what the sandbox can write: its writable layer where
	// the storage driver supports a size (DiskBoundStorage), or each
	// writable tmpfs of a read-only root (DiskBoundReadOnlyRoot).
	DiskBytes int64
	// FileSizeBytes is the fsize ulimit: a write past it fails with EFBIG
	// (the writer gets SIGXFSZ, "File size limit exceeded").
	FileSizeBytes int64
	// NoFile is the nofile ulimit, soft and hard: open descriptors per process.
	NoFile int64
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
	if s.Limits.DiskBytes <= 0 {
		s.Limits.DiskBytes = DefaultDisk
	}
	if s.Limits.FileSizeBytes <= 0 {
		s.Limits.FileSizeBytes = DefaultFileSize
	}
	if s.Limits.NoFile <= 0 {
		s.Limits.NoFile = DefaultNoFile
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
	if s.ReadOnlyRoot && (s.Workdir == "/" || s.Workdir == "/tmp") {
		return fmt.Errorf("%w: workdir %q: a read-only root needs a workdir other than / and /tmp", ErrInvalidSpec, s.Workdir)
	}
	if s.Recycle && s.ReadOnlyRoot {
		return fmt.Errorf("%w: recycle: not with a read-only root", ErrInvalidSpec)
	}
	if s.User != "" && !ValidUser(s.User) {
		return fmt.Errorf("%w: user %q: %s", ErrInvalidSpec, s.User, UserSyntax)
	}
	if s.Limits.NoFile > MaxNoFile {
		return fmt.Errorf("%w: nofile %d: expected at most %d", ErrInvalidSpec, s.Limits.NoFile, MaxNoFile)
	}
	return validateLabels(s.Labels, s.Annotations)
}
