package kubernetes

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func testRuntime(pull sandbox.PullPolicy) *Runtime {
	return &Runtime{namespace: "ns", cfg: config{owner: "me_1_2", pull: pull, toolsImage: DefaultToolsImage, requests: DefaultRequests}}
}

func TestPodForSecurity(t *testing.T) {
	root, err := testRuntime(sandbox.PullMissing).podFor("rbx-r", sandbox.Spec{Image: "example.com/task:1", CapAdd: []string{"cap_net_raw"}}.WithDefaults())
	require.NoError(t, err)
	assert.Equal(t, []corev1.Capability{"CHOWN", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "NET_RAW"},
		sandboxContainer(&root.Spec).SecurityContext.Capabilities.Add, "root: the default set and cap_add")

	spec := sandbox.Spec{Image: "example.com/task:1", User: "1000", CapAdd: []string{"cap_net_raw"},
		Labels: map[string]string{"rbx.task": "t1"}, Annotations: map[string]string{"example.com/note": "a path / with spaces"}}.WithDefaults()
	p, err := testRuntime(sandbox.PullMissing).podFor("rbx-x", spec)
	require.NoError(t, err)
	assert.False(t, *p.Spec.AutomountServiceAccountToken, "no API credentials in the sandbox")
	require.Len(t, p.Spec.Containers, 2)
	c := *sandboxContainer(&p.Spec)
	assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	assert.Equal(t, corev1.PullNever, p.Spec.Containers[0].ImagePullPolicy, "rbx/* images are never pulled")
	sc := c.SecurityContext
	assert.False(t, *sc.AllowPrivilegeEscalation)
	assert.False(t, *sc.Privileged)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	assert.Empty(t, sc.Capabilities.Add, "a user other than root gets no capability (gVisor would hand an exec them)")
	assert.Equal(t, int64(1000), *sc.RunAsUser)
	assert.Equal(t, int64(1000), *sc.RunAsGroup, "a bare uid gets its own group, not root's")
	assert.True(t, *sc.RunAsNonRoot)
	assert.Equal(t, "1", c.Resources.Limits.Cpu().String())
	assert.Equal(t, "1Gi", c.Resources.Limits.Memory().String())
	assert.Equal(t, "100m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "true", p.Labels[sandbox.LabelManaged])
	assert.Equal(t, "me_1_2", p.Labels[sandbox.LabelOwner])
	assert.Equal(t, "t1", p.Labels["rbx.task"])
	assert.Equal(t, "a path / with spaces", p.Annotations["example.com/note"])
	assert.Equal(t, "/workspace", p.Annotations[sandbox.AnnotationWorkdir])
	for _, m := range c.VolumeMounts {
		if m.MountPath == toolsDir {
			assert.True(t, m.ReadOnly, "the tools volume is read-only in the sandbox")
		}
	}
	back := specFromPod(p)
	assert.Equal(t, spec.Mode, back.Mode)
	assert.Equal(t, spec.StepTimeout, back.StepTimeout)
	assert.Equal(t, spec.Limits.NoFile, back.Limits.NoFile)
}

// TestPodForTools: a plain pod has no init container (its end would cost
// a status relist before the sandbox container starts); the tools sidecar
// alone mounts the tools volume read-write, hardened and requesting
// almost nothing, and writes the ready marker last.
func TestPodForTools(t *testing.T) {
	p, err := testRuntime(sandbox.PullNever).podFor("rbx-x", sandbox.Spec{Image: "example.com/task:1"}.WithDefaults())
	require.NoError(t, err)
	assert.Empty(t, p.Spec.InitContainers)
	assert.Nil(t, p.Spec.ShareProcessNamespace, "no step reaches the sidecar's mount through /proc")
	require.Len(t, p.Spec.Containers, 2)
	tools := p.Spec.Containers[0]
	assert.Equal(t, toolsName, tools.Name, "first: its copy runs while the sandbox container starts")
	assert.Equal(t, containerName, p.Spec.Containers[1].Name)
	assert.Equal(t, containerName, p.Annotations["kubectl.kubernetes.io/default-container"])
	assert.Equal(t, DefaultToolsImage, tools.Image)
	for _, c := range p.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.Name == toolsVolume {
				assert.Equal(t, c.Name != toolsName, m.ReadOnly, "tools volume in %s", c.Name)
			}
		}
	}
	script := strings.Join(tools.Command, " ")
	assert.Less(t, strings.Index(script, "--install"), strings.Index(script, "touch "+toolsReady), "the marker comes last")
	sc := tools.SecurityContext
	assert.False(t, *sc.AllowPrivilegeEscalation)
	assert.True(t, *sc.ReadOnlyRootFilesystem)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	assert.Empty(t, sc.Capabilities.Add)
	assert.Equal(t, "5m", tools.Resources.Requests.Cpu().String())
	assert.Equal(t, "32Mi", tools.Resources.Limits.Memory().String())
	assert.Equal(t, "1", tools.Resources.Limits.Cpu().String(), "at 100m the copy spread over several quota periods")
}

func TestPodForRefuses(t *testing.T) {
	tests := []struct {
		name string
		spec sandbox.Spec
	}{
		{"user name", sandbox.Spec{Image: "i", User: "nobody"}},
		{"cap ALL", sandbox.Spec{Image: "i", CapAdd: []string{"ALL"}}},
		{"named network", sandbox.Spec{Image: "i", Network: "mynet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testRuntime(sandbox.PullNever).podFor("rbx-x", tc.spec.WithDefaults())
			assert.ErrorIs(t, err, sandbox.ErrInvalidSpec)
		})
	}
}

func TestPullPolicy(t *testing.T) {
	tests := []struct {
		p    sandbox.PullPolicy
		ref  string
		want corev1.PullPolicy
	}{
		{sandbox.PullNever, "example.com/a:1", corev1.PullNever},
		{sandbox.PullMissing, "example.com/a:1", corev1.PullIfNotPresent},
		{sandbox.PullAlways, "example.com/a:1", corev1.PullAlways},
		{sandbox.PullAlways, "rbx/busybox:latest", corev1.PullNever},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, pullPolicy(tc.p, tc.ref), "%s %s", tc.p, tc.ref)
	}
}

func TestStarted(t *testing.T) {
	waiting := func(reason string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: containerName, Image: "img", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "m"}}}}}}
	}
	unsched := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes: Insufficient cpu"}}}}
	running := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
		{Name: containerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	tests := []struct {
		name string
		pod  *corev1.Pod
		done bool
		is   []error
	}{
		{"creating", waiting("ContainerCreating"), false, nil},
		{"never pull", waiting("ErrImageNeverPull"), true, []error{sandbox.ErrImageMissing}},
		{"pull backoff", waiting("ImagePullBackOff"), true, []error{sandbox.ErrImageMissing, sandbox.ErrPullFailed}},
		{"crash loop", waiting("CrashLoopBackOff"), true, []error{sandbox.ErrSandboxGone}},
		{"unschedulable", unsched, true, []error{ErrUnschedulable}},
		{"running", running, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done, err := started(tc.pod)
			assert.Equal(t, tc.done, done)
			if len(tc.is) == 0 {
				assert.NoError(t, err)
				return
			}
			var se *StartError
			require.True(t, errors.As(err, &se), "%v", err)
			for _, target := range tc.is {
				assert.ErrorIs(t, err, target)
			}
		})
	}
}
