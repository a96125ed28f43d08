package kubernetes

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The tools reach the pod through a sidecar, not an init container: the
// kubelet starts a pod's regular containers one after the other in the
// same sync, while an init container's end is only seen at its next status
// relist (every second), and the containers after it wait for that. The
// sandbox container starts with /.rbx still empty; Create does not return
// before readyProbe finds toolsReady there (start.go), written last.
const (
	toolsName  = "rbx-tools"
	toolsReady = toolsDir + "/ready"
)

// toolsScript fills the tools volume, mounted read-write at toolsDir in
// the tools image's container, with that image's static busybox and a
// link per applet, then writes toolsReady. Busybox comes first and whole
// (renamed into place): readyProbe runs it as soon as it is there, to wait
// for the rest.
var toolsScript = "/bin/busybox cp /bin/busybox " + busybox + ".tmp && /bin/busybox mv " + busybox + ".tmp " + busybox +
	" && /bin/busybox mkdir -p " + toolsBin + " && " + busybox + " --install -s " + toolsBin + " && /bin/busybox touch " + toolsReady

// toolsSecurity is the tools and agent containers' security context: they
// write to the tools volume only.
func toolsSecurity() *corev1.SecurityContext {
	no, yes := false, true
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: &no,
		ReadOnlyRootFilesystem:   &yes,
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// smallLimits are the limits of the containers beside the sandbox's.
func smallLimits() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("32Mi")}
}

// copyLimits are the limits of a container that copies binaries into the
// tools volume while the pod starts: at 100m its few processes' CPU was
// spread over several 100 ms quota periods (the tools were in place
// 0.3–1 s after the sandbox container started, 2026-12-03), at 1 CPU the
// copy takes a few tens of ms.
func copyLimits() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("32Mi")}
}

// idleRequests are what an idle container beside the sandbox's requests:
// a regular container's requests add to the pod's, and a request of its
// limit would halve how many pods a node's CPU schedules.
func idleRequests() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse("8Mi")}
}

// toolsSidecar is the container that fills the tools volume, then sleeps:
// the only one that mounts it read-write. It shares no process namespace
// with the sandbox container (shareProcessNamespace stays off), so no step
// reaches its mount; it never writes again once toolsReady exists. It
// sleeps rather than exits so that the pod stays Ready and its status
// shows no terminated container.
func (r *Runtime) toolsSidecar() corev1.Container {
	return corev1.Container{
		Name: toolsName, Image: r.cfg.toolsImage, ImagePullPolicy: pullPolicy(r.cfg.pull, r.cfg.toolsImage),
		Command:         []string{"/bin/busybox", "sh", "-c", toolsScript + " && exec /bin/busybox sleep 2147483647"},
		VolumeMounts:    []corev1.VolumeMount{{Name: toolsVolume, MountPath: toolsDir}},
		SecurityContext: toolsSecurity(),
		Resources:       corev1.ResourceRequirements{Limits: copyLimits(), Requests: idleRequests()},
	}
}
