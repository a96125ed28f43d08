package local

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares the one guarantee the local backend gives: the fsize
// ulimit. It isolates nothing else (see the package comment).
func (r *Runtime) Features() sandbox.Features {
	return sandbox.Features{FileSizeLimit: true}
}
