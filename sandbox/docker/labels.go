package docker

import (
	"strconv"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Labels the docker backend adds so that Open can rebuild a sandbox handle
// from the container alone (for example after `rbx replay --keep`).
const (
	LabelMode        = "rbx.mode"
	LabelWorkdir     = "rbx.workdir"
	LabelOutputCap   = "rbx.output_cap"
	LabelStepTimeout = "rbx.step_timeout"
)

// labels returns every label of a new container for spec.
func (r *Runtime) labels(spec sandbox.Spec) map[string]string {
	l := sandbox.ManagedLabels(spec.Labels)
	l[sandbox.LabelOwner] = r.owner
	l[LabelMode] = string(spec.Mode)
	l[LabelWorkdir] = spec.Workdir
	l[LabelOutputCap] = strconv.Itoa(spec.OutputCap)
	l[LabelStepTimeout] = spec.StepTimeout.String()
	return l
}

// specFromLabels recovers what Open needs from a container's labels; missing
// or malformed values fall back to the defaults.
func specFromLabels(l map[string]string, workingDir string) sandbox.Spec {
	spec := sandbox.Spec{Mode: sandbox.Mode(l[LabelMode]), Workdir: l[LabelWorkdir]}
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
		spec.Mode = sandbox.ModeSession
	}
	return spec
}
