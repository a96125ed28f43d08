package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// countingProbe answers errNotReady until its answer is set to nil.
type countingProbe struct {
	calls  atomic.Int64
	answer atomic.Pointer[error]
}

func (p *countingProbe) probe(context.Context, *corev1.Pod) error {
	p.calls.Add(1)
	if a := p.answer.Load(); a != nil {
		return *a
	}
	return errNotReady
}

func (p *countingProbe) answerNil() { var err error; p.answer.Store(&err) }

func podWith(node string, phase corev1.PodPhase, state corev1.ContainerState) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{
			{Name: containerName, Image: "img", State: state}}},
	}
}

var creating = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}

// startedEvent is the kubelet's event for container of pod p.
func startedEvent(name, container string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "p." + name, Namespace: "ns"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "ns", FieldPath: "spec.containers{" + container + "}"},
		Reason:         "Started",
	}
}

// TestWaitStartedProbeFirst: a pod whose status still says Pending is
// ready as soon as the probe answers; the status's Running is not waited
// for.
func TestWaitStartedProbeFirst(t *testing.T) {
	r := testRuntime(sandbox.PullNever)
	r.cfg.startTimeout, r.cfg.log = time.Minute, slog.New(slog.DiscardHandler)
	r.cs = fake.NewClientset(podWith("node", corev1.PodPending, creating), startedEvent("a", containerName))
	var p countingProbe
	go func() { time.Sleep(3 * probeEvery); p.answerNil() }()
	start := time.Now()
	require.NoError(t, r.waitStarted(context.Background(), "p", p.probe))
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.GreaterOrEqual(t, p.calls.Load(), int64(2), "probed again after a no")
}

// TestWaitStartedNotBeforeScheduled: no probe runs before the pod has a
// node (the API refuses an exec then); it runs once the pod is bound.
func TestWaitStartedNotBeforeScheduled(t *testing.T) {
	r := testRuntime(sandbox.PullNever)
	r.cfg.startTimeout, r.cfg.log = time.Minute, slog.New(slog.DiscardHandler)
	r.cs = fake.NewClientset(podWith("", corev1.PodPending, corev1.ContainerState{}), startedEvent("a", containerName))
	var p countingProbe
	p.answerNil()
	done := make(chan error, 1)
	go func() { done <- r.waitStarted(context.Background(), "p", p.probe) }()
	time.Sleep(5 * probeEvery)
	assert.Zero(t, p.calls.Load(), "no probe of an unscheduled pod")
	_, err := r.cs.CoreV1().Pods("ns").Update(context.Background(), podWith("node", corev1.PodPending, creating), metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Equal(t, int64(1), p.calls.Load())
}

// TestWaitStartedNotBeforeStarted: a scheduled pod is not probed before
// the kubelet's Started event of its sandbox container (the tools
// sidecar's does not count): an exec into a container not started yet
// leaks a socket in kube-apiserver (startedevent.go). It is probed once the
// event comes.
func TestWaitStartedNotBeforeStarted(t *testing.T) {
	r := testRuntime(sandbox.PullNever)
	r.cfg.startTimeout, r.cfg.log = time.Minute, slog.New(slog.DiscardHandler)
	r.cs = fake.NewClientset(podWith("node", corev1.PodPending, creating), startedEvent("tools", toolsName))
	var p countingProbe
	p.answerNil()
	done := make(chan error, 1)
	go func() { done <- r.waitStarted(context.Background(), "p", p.probe) }()
	time.Sleep(5 * probeEvery)
	assert.Zero(t, p.calls.Load(), "no probe before the sandbox container started")
	_, err := r.cs.CoreV1().Events("ns").Create(context.Background(), startedEvent("a", containerName), metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Equal(t, int64(1), p.calls.Load())
}

// TestWaitStartedFailures: what the status shows still fails the wait
// with a typed error while the probe gets no answer.
func TestWaitStartedFailures(t *testing.T) {
	unsched := podWith("", corev1.PodPending, corev1.ContainerState{})
	unsched.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes"}}
	tests := []struct {
		name string
		pod  *corev1.Pod
		is   error
	}{
		{"image missing", podWith("node", corev1.PodPending, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull"}}), sandbox.ErrImageMissing},
		{"unschedulable", unsched, ErrUnschedulable},
		{"timeout", podWith("node", corev1.PodPending, creating), ErrStartTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testRuntime(sandbox.PullNever)
			r.cfg.startTimeout, r.cfg.log = time.Second, slog.New(slog.DiscardHandler)
			r.cs = fake.NewClientset(tc.pod)
			var p countingProbe
			err := r.waitStarted(context.Background(), "p", p.probe)
			var se *StartError
			require.True(t, errors.As(err, &se), "a *StartError: %v", err)
			assert.ErrorIs(t, err, tc.is)
		})
	}
}

// TestWaitStartedRunningNoAnswer: a pod whose status says Running but
// whose probe never succeeds fails after answerGrace with the probe's
// error, not at the start timeout.
func TestWaitStartedRunningNoAnswer(t *testing.T) {
	old := answerGrace
	answerGrace = 5 * probeEvery
	t.Cleanup(func() { answerGrace = old })
	r := testRuntime(sandbox.PullNever)
	r.cfg.startTimeout, r.cfg.log = time.Minute, slog.New(slog.DiscardHandler)
	r.cs = fake.NewClientset(podWith("node", corev1.PodRunning, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}))
	var p countingProbe
	broken := fmt.Errorf("exec refused")
	p.answer.Store(&broken)
	start := time.Now()
	err := r.waitStarted(context.Background(), "p", p.probe)
	require.ErrorIs(t, err, broken)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestStartedNow: Open probes a pending pod only once its sandbox
// container is known to have started, by its status or the kubelet's
// Started event; the tools sidecar's event does not count.
func TestStartedNow(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	tests := []struct {
		name   string
		state  corev1.ContainerState
		events []runtime.Object
		want   bool
	}{
		{"status running", running, nil, true},
		{"creating, no event", creating, nil, false},
		{"creating, tools started", creating, []runtime.Object{startedEvent("tools", toolsName)}, false},
		{"creating, sandbox started", creating, []runtime.Object{startedEvent("a", containerName)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testRuntime(sandbox.PullNever)
			r.cfg.log = slog.New(slog.DiscardHandler)
			r.cs = fake.NewClientset(tc.events...)
			assert.Equal(t, tc.want, r.startedNow(context.Background(), podWith("node", corev1.PodPending, tc.state)))
		})
	}
}
