package docker

import "github.com/rbx-sandbox/rbx/sandbox"

// AnnotationPrefix starts the container labels that hold annotations (see
// sandbox.ContainerLabels).
const AnnotationPrefix = sandbox.AnnotationPrefix

// labels returns every label of a new container for spec.
func (r *Runtime) labels(spec sandbox.Spec) map[string]string {
	return sandbox.ContainerLabels(spec, r.owner)
}
