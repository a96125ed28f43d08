package containerd

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee of sandbox.Features; a private
// network (Network other than "none") is not among them and is refused.
func (r *Runtime) Features() sandbox.Features { return sandbox.AllFeatures }
