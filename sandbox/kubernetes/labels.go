package kubernetes

import (
	"maps"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Labels this backend adds so that Open can rebuild a sandbox handle from
// the pod alone; the keys are the docker and containerd backends'.
const (
	LabelMode        = "rbx.mode"
	LabelOutputCap   = "rbx.output_cap"
	LabelStepTimeout = "rbx.step_timeout"
	// LabelNetwork records Spec.Network: a NetworkPolicy selecting
	// rbx.network=none (deploy/kubernetes) isolates those pods.
	LabelNetwork = "rbx.network"
	// LabelLimits records the ulimits every exec applies (see execWrap).
	labelFileSize = "rbx.fsize"
	labelNoFile   = "rbx.nofile"
)

// labels returns every label of a new pod for spec. Every value is a legal
// label value: Spec.Validate checked the caller's, rbx's own are numbers,
// words and durations.
func (r *Runtime) labels(spec sandbox.Spec) map[string]string {
	l := sandbox.ManagedLabels(spec.Labels)
	l[sandbox.LabelOwner] = r.cfg.owner
	l[LabelMode] = string(spec.Mode)
	l[LabelOutputCap] = strconv.Itoa(spec.OutputCap)
	l[LabelStepTimeout] = spec.StepTimeout.String()
	l[LabelNetwork] = spec.Network
	l[labelFileSize] = strconv.FormatInt(spec.Limits.FileSizeBytes, 10)
	l[labelNoFile] = strconv.FormatInt(spec.Limits.NoFile, 10)
	return l
}

// annotations are the pod's: the spec's plus the workdir, for Open.
func annotations(spec sandbox.Spec) map[string]string {
	a := maps.Clone(spec.Annotations)
	if a == nil {
		a = map[string]string{}
	}
	a[sandbox.AnnotationWorkdir] = spec.Workdir
	a[sandbox.AnnotationDiskBound] = string(diskBound(spec))
	// kubectl exec and logs without -c pick the sandbox container, not
	// the tools sidecar listed before it.
	a["kubectl.kubernetes.io/default-container"] = containerName
	return a
}

// specFromPod recovers what a sandbox handle needs from a pod's labels and
// annotations; missing or malformed values fall back to the defaults.
func specFromPod(p *corev1.Pod) sandbox.Spec {
	l := p.Labels
	spec := sandbox.Spec{Mode: sandbox.Mode(l[LabelMode]), Workdir: p.Annotations[sandbox.AnnotationWorkdir]}
	if n, err := strconv.Atoi(l[LabelOutputCap]); err == nil {
		spec.OutputCap = n
	}
	if d, err := time.ParseDuration(l[LabelStepTimeout]); err == nil {
		spec.StepTimeout = d
	}
	if n, err := strconv.ParseInt(l[labelFileSize], 10, 64); err == nil {
		spec.Limits.FileSizeBytes = n
	}
	if n, err := strconv.ParseInt(l[labelNoFile], 10, 64); err == nil {
		spec.Limits.NoFile = n
	}
	spec = spec.WithDefaults()
	if !spec.Mode.Valid() {
		spec.Mode = sandbox.ModeSession
	}
	return spec
}

// info describes p for List.
func info(p *corev1.Pod) sandbox.Info {
	img := ""
	for _, c := range p.Spec.Containers {
		if c.Name == containerName {
			img = c.Image
		}
	}
	a := maps.Clone(p.Annotations)
	return sandbox.Info{
		ID: p.Name, Name: p.Name, Image: img, State: state(p),
		Labels: maps.Clone(p.Labels), Annotations: a, Created: p.CreationTimestamp.Time,
	}
}

// state names a pod's state as Docker names a container's: running,
// exited, created (pending), removing.
func state(p *corev1.Pod) string {
	switch {
	case p.DeletionTimestamp != nil:
		return "removing"
	case p.Status.Phase == corev1.PodRunning:
		return "running"
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return "exited"
	}
	return "created"
}
