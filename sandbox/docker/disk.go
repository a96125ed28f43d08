package docker

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.DiskBounder = (*Runtime)(nil)

// sizeDrivers take Docker's `size` storage option on any backing
// filesystem; quotaDrivers only on xfs mounted with pquota, which the
// engine does not report: the first create tells (see noStorageOpt).
var (
	sizeDrivers  = []string{"btrfs", "zfs", "devicemapper", "windowsfilter"}
	quotaDrivers = []string{"overlay2", "vfs"}
)

// diskProbe remembers, per runtime, whether the storage driver bounds a
// writable layer.
type diskProbe struct {
	mu      sync.Mutex
	probed  bool
	storage bool   // the `size` storage option is used
	why     string // the driver, and the engine's refusal if any
}

// DiskBound reports how a sandbox with a writable root is bounded on this
// engine: sandbox.DiskBoundStorage when the storage driver takes a size,
// else sandbox.DiskBoundFileSize. A driver that may take one (overlay2 on
// xfs) is confirmed by the first Create, which falls back and reports it
// if the engine refuses.
func (r *Runtime) DiskBound(ctx context.Context) (sandbox.DiskBound, string, error) {
	d := &r.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.probed {
		info, err := r.cli.Info(ctx)
		if err != nil {
			return "", "", fmt.Errorf("storage driver: %w", engineErr(err))
		}
		backing := ""
		for _, kv := range info.DriverStatus {
			if kv[0] == "Backing Filesystem" {
				backing = kv[1]
			}
		}
		d.probed = true
		d.storage = slices.Contains(sizeDrivers, info.Driver) ||
			(slices.Contains(quotaDrivers, info.Driver) && backing == "xfs")
		d.why = "storage driver " + info.Driver
		if backing != "" {
			d.why += " on " + backing
		}
		if !d.storage {
			r.warnNoStorageOpt(d.why)
		}
	}
	if d.storage {
		return sandbox.DiskBoundStorage, d.why, nil
	}
	return sandbox.DiskBoundFileSize, d.why, nil
}

// boundFor is the bound Create applies to spec.
func (r *Runtime) boundFor(ctx context.Context, spec sandbox.Spec) (sandbox.DiskBound, error) {
	if spec.ReadOnlyRoot {
		return sandbox.DiskBoundReadOnlyRoot, nil
	}
	b, _, err := r.DiskBound(ctx)
	return b, err
}

// noStorageOpt records that the engine refused the size option (err) and
// reports the fallback.
func (r *Runtime) noStorageOpt(err error) {
	d := &r.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.storage {
		return // another Create got there first
	}
	d.storage = false
	d.why += ": " + err.Error()
	r.warnNoStorageOpt(d.why)
}

func (r *Runtime) warnNoStorageOpt(why string) {
	r.log.Warn("the storage driver cannot bound a sandbox's writable layer: "+
		"each file is bounded by the fsize ulimit, the total is not (read_only_root bounds it)",
		"bound", sandbox.DiskBoundFileSize, "reason", why)
}

// isStorageOptErr recognises the engine's refusal of the size option:
// "--storage-opt is not supported" (fuse-overlayfs), "--storage-opt is
// supported only for overlay over xfs with 'pquota' mount option"
// (overlay2), "Storage Option not supported" (older drivers).
func isStorageOptErr(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "storage-opt") || strings.Contains(msg, "storage option")
}

// applyDiskBound sets the host config fields of bound: the size storage
// option, or the read-only root with its tmpfs volumes.
// The workdir's tmpfs belongs to owner when there is one.
func applyDiskBound(hc *container.HostConfig, spec sandbox.Spec, bound sandbox.DiskBound, owner *fileOwner, labels map[string]string) {
	size := strconv.FormatInt(spec.Limits.DiskBytes, 10)
	switch bound {
	case sandbox.DiskBoundStorage:
		hc.StorageOpt = map[string]string{"size": size}
	case sandbox.DiskBoundReadOnlyRoot:
		hc.ReadonlyRootfs = true
		// tmpfs volumes, not tmpfs mounts: the engine's archive API (file
		// actions, a task's files) sees volumes and refuses other paths of
		// a read-only root. Anonymous: removed with the container.
		workdir := "mode=0755"
		if owner != nil {
			workdir += fmt.Sprintf(",uid=%d,gid=%d", owner.uid, owner.gid)
		}
		for _, dir := range []struct{ path, opts string }{{spec.Workdir, workdir}, {"/tmp", "mode=1777"}} {
			hc.Mounts = append(hc.Mounts, mount.Mount{
				Type: mount.TypeVolume, Target: dir.path,
				VolumeOptions: &mount.VolumeOptions{Labels: labels, DriverConfig: &mount.Driver{
					Name: "local",
					Options: map[string]string{"type": "tmpfs", "device": "tmpfs",
						"o": "size=" + size + ",nr_inodes=" + strconv.FormatInt(tmpfsInodes(spec.Limits.DiskBytes), 10) + "," + dir.opts + ",nosuid,nodev"},
				}},
			})
		}
	}
}

// writableRoots are where the archive API may extract files in a sandbox
// with a read-only root; nil means anywhere.
func writableRoots(readOnly bool, workdir string) []string {
	if !readOnly {
		return nil
	}
	return []string{workdir, "/tmp"}
}

// tmpfsInodes bounds the inodes of a read-only root's tmpfs by its size:
// one per 16 KiB (mke2fs's default ratio), at least 4096. Without it a
// tmpfs gets half the host's RAM pages as inodes, and empty files, which
// take no blocks, are bounded by nothing but the memory cgroup.
func tmpfsInodes(size int64) int64 { return max(4096, size/(16<<10)) }
