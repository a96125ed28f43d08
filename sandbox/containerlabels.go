package sandbox

import (
	"maps"
	"strconv"
	"strings"
	"time"
)

// Labels the container backends (docker, containerd) add so that Open can
// rebuild a sandbox handle from the container alone (for example after
// `rbx replay --keep`). Both engines keep labels only, so annotations are
// labels under AnnotationPrefix.
const (
	LabelMode        = "rbx.mode"
	LabelOutputCap   = "rbx.output_cap"
	LabelStepTimeout = "rbx.step_timeout"
	// LabelWorkdir is where rbx versions before annotations kept the
	// workdir; SpecFromLabels still reads it.
	LabelWorkdir = "rbx.workdir"
	// AnnotationPrefix starts the container labels that hold annotations.
	AnnotationPrefix = "annotation.rbx/"
)

// ContainerLabels returns every label of a new container for spec, owned
// by owner: its labels, the rbx.* ones, and its annotations (with the
// workdir) under AnnotationPrefix.
func ContainerLabels(spec Spec, owner string) map[string]string {
	l := ManagedLabels(spec.Labels)
	l[LabelOwner] = owner
	l[LabelMode] = string(spec.Mode)
	l[LabelOutputCap] = strconv.Itoa(spec.OutputCap)
	l[LabelStepTimeout] = spec.StepTimeout.String()
	for k, v := range spec.Annotations {
		l[AnnotationPrefix+k] = v
	}
	l[AnnotationPrefix+AnnotationWorkdir] = spec.Workdir
	return l
}

// SplitLabels separates a container's labels into the sandbox's labels
// and annotations.
func SplitLabels(all map[string]string) (labels, annotations map[string]string) {
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

// SpecFromLabels recovers what Open needs from a container's labels; the
// workdir falls back to workingDir (the engine's own record, if any), and
// missing or malformed values to the defaults.
func SpecFromLabels(l map[string]string, workingDir string) Spec {
	spec := Spec{Mode: Mode(l[LabelMode]), Workdir: l[AnnotationPrefix+AnnotationWorkdir]}
	if spec.Workdir == "" {
		spec.Workdir = l[LabelWorkdir]
	}
	if spec.Workdir == "" {
		spec.Workdir = workingDir
	}
	if n, err := strconv.Atoi(l[LabelOutputCap]); err == nil {
		spec.OutputCap = n
	}
	if d, err := time.ParseDuration(l[LabelStepTimeout]); err == nil {
		spec.StepTimeout = d
	}
	spec = spec.WithDefaults()
	if !spec.Mode.Valid() {
		spec.Mode = ModeSession
	}
	return spec
}
