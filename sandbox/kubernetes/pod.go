package kubernetes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// Names inside every pod.
const (
	containerName = "sandbox"
	toolsVolume   = "rbx-tools"
	// toolsDir holds a static busybox copied from the tools image by the
	// tools sidecar (tools.go), mounted read-only in every other
	// container: WriteFiles, the kill scripts and the OOM probe run it,
	// never the image's own programs, so that what a step did to the
	// image's tools or PATH cannot alter them, and a root step without
	// CAP_SYS_ADMIN cannot remount it.
	toolsDir = "/.rbx"
	busybox  = toolsDir + "/busybox"
	// toolsBin holds a link per busybox applet: the helper scripts' PATH.
	toolsBin = toolsDir + "/bin"
	// agentPath is the rbx-agent of a recyclable pod, copied beside busybox
	// from the agent image by the agentInstall init container: the sandbox
	// container's PID 1, and what recycles it (see recycle.go).
	agentPath    = toolsDir + "/rbx-agent"
	agentInstall = "rbx-agent"
	// baselineName is a recyclable pod's second container: the same image,
	// running only the agent, never a step; a recycle reads the image's
	// files from it (agent cat).
	baselineName = "rbx-baseline"
)

// keepAlive is the container's main process: it creates the workdir and
// sleeps; as PID 1 the shell reaps the zombies that background jobs leave.
func keepAlive(workdir string) []string {
	return []string{"/bin/sh", "-c", "mkdir -p -- " + session.Quote(workdir) + " 2>/dev/null; while :; do sleep 3600; done"}
}

// podFor returns the pod of a new sandbox called name for spec (defaults
// applied, validated).
func (r *Runtime) podFor(name string, spec sandbox.Spec) (*corev1.Pod, error) {
	sc, err := securityContext(spec)
	if err != nil {
		return nil, err
	}
	switch spec.Network {
	case sandbox.NetworkNone, sandbox.NetworkBridge:
	default:
		return nil, fmt.Errorf("%w: network %q: the kubernetes backend has %q (the pod network) and %q (enforced by the cluster's NetworkPolicy)",
			sandbox.ErrInvalidSpec, spec.Network, sandbox.NetworkBridge, sandbox.NetworkNone)
	}
	res, err := r.resources(spec.Limits)
	if err != nil {
		return nil, err
	}
	no := false
	grace := int64(0)
	// The sandbox container mounts the tools read-only from the start.
	mounts := []corev1.VolumeMount{{Name: toolsVolume, MountPath: toolsDir, ReadOnly: true}}
	volumes := []corev1.Volume{{Name: toolsVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		SizeLimit: resource.NewQuantity(16<<20, resource.BinarySI)}}}}
	if spec.ReadOnlyRoot {
		for i, dir := range []string{spec.Workdir, "/tmp"} {
			v := "rbx-rw-" + strconv.Itoa(i)
			mounts = append(mounts, corev1.VolumeMount{Name: v, MountPath: dir})
			// Memory-backed: a tmpfs of that size, full at the bound (ENOSPC)
			// and counted against the memory limit, as on Docker.
			volumes = append(volumes, corev1.Volume{Name: v, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: resource.NewQuantity(spec.Limits.DiskBytes, resource.BinarySI)}}})
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: r.namespace,
			Labels: r.labels(spec), Annotations: annotations(spec),
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  &no, // the sandbox gets no credentials to the API
			EnableServiceLinks:            &no,
			TerminationGracePeriodSeconds: &grace,
			// The tools first: the kubelet starts the containers in this
			// order, and the copy then runs while the sandbox container
			// is created and started.
			Containers: []corev1.Container{r.toolsSidecar(), {
				Name: containerName, Image: spec.Image, ImagePullPolicy: pullPolicy(r.cfg.pull, spec.Image),
				Command: keepAlive(spec.Workdir), Env: envVars(spec.Env),
				Resources: res, SecurityContext: sc, VolumeMounts: mounts,
			}},
			Volumes: volumes,
		},
	}
	if rc := r.cfg.runtimeClass; rc != "" {
		pod.Spec.RuntimeClassName = &rc
	}
	if spec.Recycle {
		r.recyclable(pod, spec)
	}
	return pod, nil
}

// recyclable makes pod a recyclable sandbox's: an init container copies
// the agent from its image next to the tools (not the tools sidecar's
// way: the agent is the sandbox container's PID 1, so it must be in place
// before that container starts, at the cost of one status relist); the
// agent alone is the sandbox container's PID 1 (not dumpable, reaping,
// never exiting when a child does; its workdir is made after the start);
// a baseline container of the same image runs the agent only, for
// restores to read the image from. The baseline runs as root with the
// default capabilities, limits of 100m CPU and 32 MiB and near nothing
// requested; it shares nothing of the sandbox's files or processes (the
// containers of a pod share their network and IPC namespaces only, where
// the baseline does nothing).
func (r *Runtime) recyclable(pod *corev1.Pod, spec sandbox.Spec) {
	ps := &pod.Spec
	ps.InitContainers = append(ps.InitContainers, corev1.Container{
		Name: agentInstall, Image: r.cfg.agentImage, ImagePullPolicy: pullPolicy(r.cfg.pull, r.cfg.agentImage),
		Command:         []string{"/rbx-agent", "install", agentPath},
		VolumeMounts:    []corev1.VolumeMount{{Name: toolsVolume, MountPath: toolsDir}},
		SecurityContext: toolsSecurity(), Resources: corev1.ResourceRequirements{Limits: copyLimits(), Requests: smallLimits()},
	})
	sandboxContainer(ps).Command = []string{agentPath, "init"}
	root, no := int64(0), false
	caps := make([]corev1.Capability, len(sandbox.DefaultCaps))
	for i, c := range sandbox.DefaultCaps {
		caps[i] = corev1.Capability(c)
	}
	ps.Containers = append(ps.Containers, corev1.Container{
		Name: baselineName, Image: spec.Image, ImagePullPolicy: pullPolicy(r.cfg.pull, spec.Image),
		Command: []string{agentPath, "init"},
		SecurityContext: &corev1.SecurityContext{
			RunAsUser: &root, RunAsGroup: &root, Privileged: &no, AllowPrivilegeEscalation: &no,
			Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: caps},
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: toolsVolume, MountPath: toolsDir, ReadOnly: true}},
		// It idles but while a recycle reads from it.
		Resources: corev1.ResourceRequirements{Limits: smallLimits(), Requests: idleRequests()},
	})
}

// sandboxContainer returns the sandbox container of ps.
func sandboxContainer(ps *corev1.PodSpec) *corev1.Container {
	for i := range ps.Containers {
		if ps.Containers[i].Name == containerName {
			return &ps.Containers[i]
		}
	}
	return nil
}

// pullPolicy maps rbx's pull policy onto imagePullPolicy, for the sandbox
// and the tools image alike. rbx/* images are built locally and never
// pulled (sandbox.PullPolicy.Effective, as on Docker and containerd); the
// same image pushed to a registry and named by its registry reference
// ("127.0.0.1:5000/rbx/busybox:latest") follows p.
func pullPolicy(p sandbox.PullPolicy, ref string) corev1.PullPolicy {
	switch p.Effective(ref) {
	case sandbox.PullAlways:
		return corev1.PullAlways
	case sandbox.PullMissing:
		return corev1.PullIfNotPresent
	}
	return corev1.PullNever
}

// securityContext is the sandbox container's: no privilege escalation,
// every capability dropped but the default set and CapAdd, the runtime's
// default seccomp profile, and a numeric Spec.User as runAsUser/Group.
func securityContext(spec sandbox.Spec) (*corev1.SecurityContext, error) {
	no := false
	caps := []corev1.Capability{}
	seen := map[string]bool{}
	for _, c := range append(append([]string(nil), sandbox.DefaultCaps...), spec.CapAdd...) {
		name := strings.TrimPrefix(strings.ToUpper(c), "CAP_")
		if name == "ALL" {
			return nil, fmt.Errorf("%w: cap_add ALL: name the capabilities", sandbox.ErrInvalidSpec)
		}
		if !seen[name] {
			seen[name] = true
			caps = append(caps, corev1.Capability(name))
		}
	}
	sc := &corev1.SecurityContext{
		Privileged:               &no,
		AllowPrivilegeEscalation: &no,
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: caps},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		ReadOnlyRootFilesystem:   &spec.ReadOnlyRoot,
	}
	if spec.User == "" {
		return sc, nil
	}
	uid, gid, err := numericUser(spec.User)
	if err != nil {
		return nil, err
	}
	nonRoot := uid != 0
	sc.RunAsUser, sc.RunAsGroup, sc.RunAsNonRoot = &uid, &gid, &nonRoot
	if nonRoot {
		// No capability at all for a user other than root. The kernel
		// clears them when runc starts a process of that user, but gVisor
		// gives an exec the container's sets as written: under runsc a uid
		// 1000 exec held CAP_CHOWN and CAP_FOWNER, and busybox sh, which
		// runs chmod in its own process, changed root's /etc/passwd
		// (sandboxtest's FileAccess). no-new-privileges leaves nothing
		// else they could serve.
		sc.Capabilities.Add = nil
	}
	return sc, nil
}

// numericUser parses "uid" or "uid:gid" (a bare uid gets the group of the
// same number, as sandbox.NormalUser). Names are refused: a pod's
// securityContext takes numbers, and looking a name up would mean reading
// the image's /etc/passwd before the pod exists.
func numericUser(u string) (uid, gid int64, err error) {
	us, gs, _ := strings.Cut(sandbox.NormalUser(u), ":")
	uid, err1 := strconv.ParseInt(us, 10, 64)
	gid, err2 := strconv.ParseInt(gs, 10, 64)
	if err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("%w: user %q: the kubernetes backend takes a numeric uid[:gid]", sandbox.ErrInvalidSpec, u)
	}
	return uid, gid, nil
}

// resources turns the limits into the container's limits, with the
// runtime's requests (never above the limits). Ephemeral storage bounds the
// writable layer and logs through the kubelet's eviction. Pids, file size
// and open files have no pod field: pids are bounded by the kubelet's
// podPidsLimit, the ulimits by every exec's wrapper (see execWrap).
func (r *Runtime) resources(l sandbox.Limits) (corev1.ResourceRequirements, error) {
	cpu := int64(l.CPUs * 1000)
	if cpu < 1 {
		return corev1.ResourceRequirements{}, fmt.Errorf("%w: cpus %v: expected at least 0.001", sandbox.ErrInvalidSpec, l.CPUs)
	}
	return corev1.ResourceRequirements{
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:              *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory:           *resource.NewQuantity(l.MemoryBytes, resource.BinarySI),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(l.DiskBytes, resource.BinarySI),
		},
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:              *resource.NewMilliQuantity(min(cpu, r.cfg.requests.CPUMillis), resource.DecimalSI),
			corev1.ResourceMemory:           *resource.NewQuantity(min(l.MemoryBytes, r.cfg.requests.MemoryBytes), resource.BinarySI),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(0, resource.BinarySI),
		},
	}, nil
}

// envVars renders env sorted by name.
func envVars(env map[string]string) []corev1.EnvVar {
	vars := make([]corev1.EnvVar, 0, len(env))
	for k, v := range env {
		vars = append(vars, corev1.EnvVar{Name: k, Value: v})
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	return vars
}
