package docker

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee: the engine enforces them all, and
// Recycle when the runtime has its agent (WithAgent).
func (r *Runtime) Features() sandbox.Features {
	f := sandbox.AllFeatures
	f.Recycle = r.agent != nil
	return f
}
