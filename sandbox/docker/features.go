package docker

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee: the engine enforces them all.
func (r *Runtime) Features() sandbox.Features { return sandbox.AllFeatures }
