package containerd

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee of sandbox.Features, but a private
// network only where the CNI plugins it needs are installed (see
// CNIBinDirs): without them Network "bridge" is refused with ErrNoCNI;
// Recycle when the runtime has its agent (WithAgent).
func (r *Runtime) Features() sandbox.Features {
	f := sandbox.AllFeatures
	_, err := findCNI(CNIBinDirs)
	f.PrivateNetwork = err == nil
	f.Recycle = r.agent != nil
	return f
}
