package sandbox

import "context"

// DiskBound names what bounds a sandbox's disk writes. Backends report it
// (DiskBounder, and AnnotationDiskBound on each sandbox) rather than
// degrade silently where a storage driver cannot bound a writable layer.
type DiskBound string

const (
	// DiskBoundStorage: the storage driver caps the writable layer at
	// Limits.DiskBytes (Docker's `size` storage option: overlay2 on xfs
	// with pquota, btrfs, zfs, devicemapper). Writes past it fail with
	// ENOSPC; each file is also bounded by Limits.FileSizeBytes.
	DiskBoundStorage DiskBound = "storage-opt"
	// DiskBoundReadOnlyRoot: the root filesystem is read-only and the
	// only writable paths, the workdir and /tmp, are each a tmpfs of
	// Limits.DiskBytes whose pages count against the memory limit.
	DiskBoundReadOnlyRoot DiskBound = "read-only-root"
	// DiskBoundFileSize: only each file is bounded, by
	// Limits.FileSizeBytes; the total a sandbox writes to its writable layer
	// is not (the storage driver cannot cap it, for example
	// fuse-overlayfs or overlay2 off xfs). Use ReadOnlyRoot for a bound.
	DiskBoundFileSize DiskBound = "file-size-only"
)

// AnnotationDiskBound holds the DiskBound a backend applied to a sandbox.
const AnnotationDiskBound = "rbx.disk-bound"

// DiskBounder is implemented by runtimes that report how they bound the
// disk writes of a sandbox with a writable root (docker, local).
type DiskBounder interface {
	// DiskBound returns the bound of a sandbox created without
	// Spec.ReadOnlyRoot (with it, the bound is DiskBoundReadOnlyRoot), and
	// a one-line reason such as the storage driver's name.
	DiskBound(ctx context.Context) (DiskBound, string, error)
}
