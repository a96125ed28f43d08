// Package admission is the operator's policy over what a task may ask of
// its sandbox: the capabilities it may add beyond the backends' default
// set, a network, root, a writable root filesystem, and the registries its
// image may be pulled from. Task folders come from public datasets and
// the commands run in their sandboxes come from a policy nobody reviewed,
// so a task that asks for more than the operator allows is refused when
// it is loaded, before any sandbox exists — never granted, never ignored,
// silently. See docs/isolation.md.
package admission

import (
	"fmt"
	"slices"
	"strings"
)

// SafeCaps are the capabilities a task may add without the operator's
// say (beyond the backends' default CHOWN, FOWNER, FSETID, KILL, SETGID,
// SETUID). Each acts only on what the sandbox already owns:
//   - AUDIT_WRITE: write records to the kernel audit log (Docker's
//     default; sshd and login tools need it);
//   - DAC_OVERRIDE: bypass file permission checks, on the sandbox's own
//     files (Docker's default; build tools running as root expect it);
//   - NET_BIND_SERVICE: bind ports below 1024, in the sandbox's own
//     network namespace (Docker's default);
//   - SYS_CHROOT: chroot inside the sandbox's own filesystem (Docker's
//     default; package managers use it).
//
// Not in it, for example: DAC_READ_SEARCH (open_by_handle_at reaches files
// outside the container's mount), SYS_ADMIN (mount, namespaces: the
// container boundary), SYS_PTRACE (other processes' memory, the session
// shell's included), NET_ADMIN and NET_RAW (the network stack, spoofing),
// SYS_MODULE (the host kernel), MKNOD (device nodes), SETFCAP (file
// capabilities left for a later episode).
var SafeCaps = []string{"AUDIT_WRITE", "DAC_OVERRIDE", "NET_BIND_SERVICE", "SYS_CHROOT"}

// Policy says what tasks may ask for. The zero Policy allows nothing
// beyond the backends' defaults; Default adds SafeCaps.
type Policy struct {
	// Caps are the capabilities a task may add (cap_add), upper case
	// without CAP_.
	Caps []string `json:"allow_caps,omitempty"`
	// Network allows network: bridge.
	Network bool `json:"allow_network,omitempty"`
	// DenyRoot requires every task to name a non-root user.
	DenyRoot bool `json:"deny_root,omitempty"`
	// DenyWritableRoot requires every task to ask for read_only_root.
	DenyWritableRoot bool `json:"deny_writable_root,omitempty"`
	// Registries are the registry hosts (host[:port]) task images may be
	// pulled from; an image whose pull the pull policy would allow is
	// refused unless its registry is listed. rbx's local images (rbx/*)
	// are never pulled.
	Registries []string `json:"allow_registries,omitempty"`
}

// Default is the policy without the operator's say: SafeCaps, no
// network, root and a writable root allowed, no registry.
func Default() Policy { return Policy{Caps: slices.Clone(SafeCaps)} }

// Merge returns p with what o allows or denies on top.
func (p Policy) Merge(o Policy) Policy {
	p.Caps = append(slices.Clone(p.Caps), o.Caps...)
	p.Network = p.Network || o.Network
	p.DenyRoot = p.DenyRoot || o.DenyRoot
	p.DenyWritableRoot = p.DenyWritableRoot || o.DenyWritableRoot
	p.Registries = append(slices.Clone(p.Registries), o.Registries...)
	return p
}

// Validate checks the names p holds.
func (p Policy) Validate() error {
	for _, c := range p.Caps {
		if c != NormalCap(c) || c == "" || c == "ALL" {
			return fmt.Errorf("capability %q: expected a name such as NET_ADMIN (upper case, without CAP_; not ALL)", c)
		}
	}
	for _, r := range p.Registries {
		if r == "" || strings.ContainsAny(r, "/ ") {
			return fmt.Errorf("registry %q: expected a host[:port] such as ghcr.io or 127.0.0.1:5000", r)
		}
	}
	return nil
}

// NormalCap is c upper case without a CAP_ prefix.
func NormalCap(c string) string { return strings.TrimPrefix(strings.ToUpper(c), "CAP_") }

// Describe says what p allows, for rbx version and /healthz.
func (p Policy) Describe() string {
	net := "no network"
	if p.Network {
		net = "network allowed"
	}
	s := fmt.Sprintf("added capabilities %s; %s", strings.Join(p.Caps, ","), net)
	if p.DenyRoot {
		s += "; root denied"
	}
	if p.DenyWritableRoot {
		s += "; read-only root required"
	}
	if len(p.Registries) > 0 {
		s += "; pulls from " + strings.Join(p.Registries, ",")
	} else {
		s += "; no registry"
	}
	return s
}
