package containerd

import "github.com/rbx-sandbox/rbx/sandbox"

// AnnotationPrefix starts the container labels that hold annotations, as on
// the docker backend (see sandbox.ContainerLabels).
const AnnotationPrefix = sandbox.AnnotationPrefix

// labels returns every label of a new container for spec, with the disk
// bound it gets.
func (r *Runtime) labels(spec sandbox.Spec) map[string]string {
	l := sandbox.ContainerLabels(spec, r.owner)
	bound := sandbox.DiskBoundFileSize // see DiskBound
	if spec.ReadOnlyRoot {
		bound = sandbox.DiskBoundReadOnlyRoot
	}
	l[AnnotationPrefix+sandbox.AnnotationDiskBound] = string(bound)
	return l
}
