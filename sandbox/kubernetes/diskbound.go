package kubernetes

import (
	"context"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.DiskBounder = (*Runtime)(nil)

// DiskBound returns sandbox.DiskBoundFileSize: the pod's ephemeral-storage
// limit (Limits.DiskBytes) makes the kubelet evict a pod that writes past
// it, but no write is refused on the way, so the bound that holds at each
// write is the file size rlimit. A read-only root's workdir and /tmp are
// memory-backed emptyDirs of Limits.DiskBytes (tmpfs: ENOSPC at the bound).
func (r *Runtime) DiskBound(context.Context) (sandbox.DiskBound, string, error) {
	return sandbox.DiskBoundFileSize, "kubernetes backend: past limits.disk the kubelet evicts the pod (ephemeral-storage); writes are not refused", nil
}

// diskBound is the bound of a sandbox of spec, for its annotation.
func diskBound(spec sandbox.Spec) sandbox.DiskBound {
	if spec.ReadOnlyRoot {
		return sandbox.DiskBoundReadOnlyRoot
	}
	return sandbox.DiskBoundFileSize
}
