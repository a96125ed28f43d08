package containerd

import "errors"

// ErrNoCNI is why a sandbox asking for a network other than "none" is
// refused (with sandbox.ErrInvalidSpec): a containerd container's network
// namespace is set up by CNI plugins, which this backend does not drive.
// Refused rather than run without the network the task asked for.
var ErrNoCNI = errors.New("the containerd backend has no networking (private networks would need CNI plugins, which it does not drive); use network \"none\" or the docker backend")
