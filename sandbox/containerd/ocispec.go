package containerd

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// initMount is where the host's tini is bind-mounted (as Docker does).
const initMount = "/sbin/docker-init"

// cpuPeriod is the CFS period the CPU quota is a share of (100ms, as Docker).
const cpuPeriod = 100_000

// specOpts turns spec into the container's OCI spec options: the image's
// config (user, env), the user ids resolved for spec.User (nil: the
// image's), the keep-alive main process, capabilities, no-new-privileges,
// the default seccomp profile, resource limits, a read-only root when
// asked, and the network namespace at nsPath (the bridge's; "" means a
// new, empty one: only loopback).
func (r *Runtime) specOpts(img client.Image, spec sandbox.Spec, hostname string, ids *sandbox.UserIDs, nsPath string) ([]oci.SpecOpts, error) {
	caps, err := capabilities(spec.CapAdd)
	if err != nil {
		return nil, err
	}
	opts := []oci.SpecOpts{
		oci.WithImageConfig(img),
		oci.WithProcessArgs(r.mainArgs(spec.Workdir)...),
		oci.WithProcessCwd("/"),
		oci.WithEnv(envList(spec.Env)),
		oci.WithHostname(hostname),
		oci.WithCapabilities(caps),
		oci.WithNoNewPrivileges,
		seccomp.WithDefaultProfile(),
	}
	if ids != nil {
		opts = append(opts, oci.WithUIDGID(uint32(ids.UID), uint32(ids.GID)), withGroups(ids.Groups))
	}
	if spec.ReadOnlyRoot {
		opts = append(opts, readOnlyOpts(spec, ids)...)
	}
	if nsPath != "" {
		opts = append(opts, netnsOpts(nsPath)...)
	}
	if r.initPath != "" {
		opts = append(opts, oci.WithMounts([]specs.Mount{{
			Destination: initMount, Type: "bind", Source: r.initPath, Options: []string{"rbind", "ro"},
		}}))
	}
	if spec.Recycle {
		opts = append(opts, r.agent.specOpts()...)
	}
	return append(opts, limitOpts(r.ociLimits(spec.Limits))...), nil
}

// limitOpts bounds cpu, memory (no swap beyond it) and pids through the
// container's cgroup, and file size and open files with rlimits, which
// execs inherit from the main process's spec. The writable layer itself is
// not bounded (see DiskBound).
func limitOpts(l sandbox.Limits) []oci.SpecOpts {
	fsize, nofile := uint64(l.FileSizeBytes), uint64(l.NoFile)
	return []oci.SpecOpts{
		oci.WithMemoryLimit(uint64(l.MemoryBytes)),
		oci.WithMemorySwap(l.MemoryBytes),
		oci.WithCPUCFS(int64(l.CPUs*cpuPeriod), cpuPeriod),
		oci.WithPidsLimit(l.Pids),
		oci.WithRlimit(&specs.POSIXRlimit{Type: "RLIMIT_FSIZE", Hard: fsize, Soft: fsize}),
		oci.WithRlimit(&specs.POSIXRlimit{Type: "RLIMIT_NOFILE", Hard: nofile, Soft: nofile}),
	}
}

// capabilities returns the default set plus add, as CAP_ names.
func capabilities(add []string) ([]string, error) {
	seen := map[string]bool{}
	var caps []string
	for _, c := range append(append([]string(nil), sandbox.DefaultCaps...), add...) {
		name := strings.ToUpper(c)
		if !strings.HasPrefix(name, "CAP_") {
			name = "CAP_" + name
		}
		if name == "CAP_ALL" {
			return nil, fmt.Errorf("%w: cap_add ALL: name the capabilities", sandbox.ErrInvalidSpec)
		}
		if !seen[name] {
			seen[name] = true
			caps = append(caps, name)
		}
	}
	return caps, nil
}

// keepAliveLoop keeps the container running between commands; it works on
// busybox and Debian alike.
const keepAliveLoop = "while :; do sleep 3600; done"

// mainArgs is the container's main process: tini (when the host has one)
// reaping the zombies that background jobs of the session leave behind,
// over a shell that creates the workdir and sleeps.
func (r *Runtime) mainArgs(workdir string) []string {
	sh := []string{"/bin/sh", "-c", "mkdir -p -- " + session.Quote(workdir) + " 2>/dev/null; " + keepAliveLoop}
	if r.initPath == "" {
		return sh
	}
	return append([]string{initMount, "--"}, sh...)
}

// envList renders env as sorted KEY=value pairs.
func envList(env map[string]string) []string {
	l := make([]string, 0, len(env))
	for k, v := range env {
		l = append(l, k+"="+v)
	}
	sort.Strings(l)
	return l
}

// withGroups adds the user's supplementary groups, as Docker does for a
// user named in the image's /etc/group.
func withGroups(gids []int) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		for _, g := range gids {
			if !slices.Contains(s.Process.User.AdditionalGids, uint32(g)) {
				s.Process.User.AdditionalGids = append(s.Process.User.AdditionalGids, uint32(g))
			}
		}
		return nil
	}
}
