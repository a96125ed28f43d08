package containerd

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Labels this backend adds so that Open can rebuild a sandbox handle from
// the container alone. The keys are the docker backend's.
const (
	LabelMode        = "rbx.mode"
	LabelOutputCap   = "rbx.output_cap"
	LabelStepTimeout = "rbx.step_timeout"
)

// AnnotationPrefix starts the container labels that hold annotations, as on
// the docker backend: containerd containers have labels only.
const AnnotationPrefix = "annotation.rbx/"

// labels returns every label of a new container for spec.
func (r *Runtime) labels(spec sandbox.Spec) map[string]string {
	l := sandbox.ManagedLabels(spec.Labels)
	l[sandbox.LabelOwner] = r.owner
	l[LabelMode] = string(spec.Mode)
	l[LabelOutputCap] = strconv.Itoa(spec.OutputCap)
	l[LabelStepTimeout] = spec.StepTimeout.String()
	for k, v := range spec.Annotations {
		l[AnnotationPrefix+k] = v
	}
	l[AnnotationPrefix+sandbox.AnnotationWorkdir] = spec.Workdir
	bound := sandbox.DiskBoundFileSize // see DiskBound
	if spec.ReadOnlyRoot {
		bound = sandbox.DiskBoundReadOnlyRoot
	}
	l[AnnotationPrefix+sandbox.AnnotationDiskBound] = string(bound)
	return l
}

// splitLabels separates a container's labels into the sandbox's labels and
// annotations.
func splitLabels(all map[string]string) (labels, annotations map[string]string) {
	labels = maps.Clone(all)
	for k, v := range all {
		if a, ok := strings.CutPrefix(k, AnnotationPrefix); ok {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[a] = v
			delete(labels, k)
		}
	}
	return labels, annotations
}

// specFromLabels recovers what Open needs from a container's labels;
// missing or malformed values fall back to the defaults.
func specFromLabels(l map[string]string) sandbox.Spec {
	spec := sandbox.Spec{Mode: sandbox.Mode(l[LabelMode]), Workdir: l[AnnotationPrefix+sandbox.AnnotationWorkdir]}
	if n, err := strconv.Atoi(l[LabelOutputCap]); err == nil {
		spec.OutputCap = n
	}
	if d, err := time.ParseDuration(l[LabelStepTimeout]); err == nil {
		spec.StepTimeout = d
	}
	spec = spec.WithDefaults()
	if !spec.Mode.Valid() {
		spec.Mode = sandbox.ModeSession
	}
	return spec
}
