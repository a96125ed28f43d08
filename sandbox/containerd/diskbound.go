package containerd

import (
	"context"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.DiskBounder = (*Runtime)(nil)

// DiskBound returns sandbox.DiskBoundFileSize: the snapshotter's writable
// layer has no size here, so only each file is bounded (the fsize rlimit).
func (r *Runtime) DiskBound(context.Context) (sandbox.DiskBound, string, error) {
	return sandbox.DiskBoundFileSize, "containerd backend: the writable snapshot is not size-bounded", nil
}
