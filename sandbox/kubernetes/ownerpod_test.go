package kubernetes_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// startOwnerPod creates a sleeping pod standing for an in-cluster `rbx
// serve` (not an rbx sandbox: no rbx.* label), force-deleted at test end.
func startOwnerPod(t *testing.T, rt *kubernetes.Runtime) *corev1.Pod {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	grace, no := int64(0), false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "rbx-ownerpod-" + hex.EncodeToString(b)},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &grace, AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{
				Name: "rbx", Image: busyboxImage, ImagePullPolicy: corev1.PullNever,
				Command: []string{"/bin/busybox", "sleep", "3600"},
			}},
		},
	}
	pods := rt.Clientset().CoreV1().Pods(rt.Namespace())
	t.Cleanup(func() { forceDelete(t, rt, pod.Name) })
	got, err := pods.Create(context.Background(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
	return got
}

// forceDelete deletes pod name as `kubectl delete --force --grace-period=0`
// does: gone from the API at once, no drain.
func forceDelete(t *testing.T, rt *kubernetes.Runtime, name string) {
	grace := int64(0)
	err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete owner pod %s: %v", name, err)
	}
}

// ownedRuntime returns a runtime whose owner id is that of an rbx running
// in pod (its hostname is the pod's name: another host than this test's),
// told so by WithOwnerPod, beating once; its pods and lease are removed
// at test end.
func ownedRuntime(t *testing.T, pod *corev1.Pod) (*kubernetes.Runtime, string) {
	owner := fmt.Sprintf("%s_%d_1", pod.Name, os.Getpid())
	rt := k8stest.Runtime(t, kubernetes.WithOwner(owner), kubernetes.WithOwnerPod(pod.Name, string(pod.UID)),
		kubernetes.WithHeartbeatEvery(time.Hour))
	t.Cleanup(func() {
		ctx := context.Background()
		left, err := rt.List(ctx, map[string]string{sandbox.LabelOwner: owner})
		assert.NoError(t, err)
		for _, in := range left {
			assert.NoError(t, ignoreNotFound(rt.Remove(ctx, in.ID)))
		}
		assert.NoError(t, rt.ForgetHeartbeat(ctx, owner))
	})
	return rt, owner
}

func ignoreNotFound(err error) error {
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil
	}
	return err
}

// TestIntegrationOwnerPod: an rbx told its pod (WithOwnerPod) makes that
// pod the owner of its sandbox pods and names it in its lease. While the
// pod runs, a fresh lease keeps the owner alive; once the pod is
// force-deleted, another rbx's default Reap takes the owner for dead at
// once — not when the lease is 2 min old — and forgets its lease. The
// garbage collector races Reap for the sandbox that names the pod; the
// test strips the reference from a second one, which only Reap removes.
func TestIntegrationOwnerPod(t *testing.T) {
	ctx := context.Background()
	other := k8stest.Runtime(t)
	ownerPod := startOwnerPod(t, other)
	rt, owner := ownedRuntime(t, ownerPod)

	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	require.NoError(t, err)
	p, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Get(ctx, sb.ID(), metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, p.OwnerReferences, 1)
	ref := p.OwnerReferences[0]
	assert.Equal(t, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: ownerPod.Name, UID: ownerPod.UID, Controller: ref.Controller}, ref)
	require.NotNil(t, ref.Controller)
	assert.False(t, *ref.Controller, "not a controller")
	assert.Nil(t, ref.BlockOwnerDeletion, "blockOwnerDeletion needs more RBAC")
	l := ownerLease(t, rt, owner)
	assert.Equal(t, ownerPod.Name, l.Annotations[kubernetes.AnnotationPodName])
	assert.Equal(t, string(ownerPod.UID), l.Annotations[kubernetes.AnnotationPodUID])
	unowned, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	require.NoError(t, err)
	_, err = rt.Clientset().CoreV1().Pods(rt.Namespace()).Patch(ctx, unowned.ID(), types.MergePatchType,
		[]byte(`{"metadata":{"ownerReferences":null}}`), metav1.PatchOptions{})
	require.NoError(t, err, "out of the garbage collector's reach")

	sc := scopedTo{Runtime: other, owner: owner}
	removed, err := sandbox.Reap(ctx, sc)
	require.NoError(t, err)
	assert.Empty(t, removed, "the owner's pod exists and its lease is fresh")
	beats, err := other.Heartbeats(ctx)
	require.NoError(t, err)
	assert.False(t, sandbox.OwnerDead(owner, beats, time.Now(), sandbox.DefaultHeartbeatMaxAge))

	forceDelete(t, other, ownerPod.Name)
	start := time.Now()
	beats, err = other.Heartbeats(ctx)
	require.NoError(t, err)
	require.Contains(t, beats, owner, "the lease outlives the pod")
	assert.True(t, sandbox.OwnerDead(owner, beats, time.Now(), sandbox.DefaultHeartbeatMaxAge), "dead at once: its pod is gone")

	removed, err = sandbox.Reap(ctx, sc)
	require.NoError(t, err)
	ids := make([]string, len(removed))
	for i, in := range removed {
		ids[i] = in.ID
	}
	assert.Contains(t, ids, unowned.ID(), "reaped at once")
	if !slices.Contains(ids, sb.ID()) {
		t.Logf("the garbage collector deleted %s before Reap", sb.ID())
	}
	// A pod the collector was deleting may still be listed by the first
	// Reap, which then keeps the lease: the next one forgets it.
	require.Eventually(t, func() bool {
		_, err := sandbox.Reap(ctx, sc)
		left, lerr := sc.List(ctx, nil)
		beats, berr := other.Heartbeats(ctx)
		_, kept := beats[owner]
		return err == nil && lerr == nil && berr == nil && len(left) == 0 && !kept
	}, 30*time.Second, time.Second, "the sandbox and the lease are gone")
	assert.Less(t, time.Since(start), sandbox.DefaultHeartbeatMaxAge/2, "well before the lease's age would tell")
}

// TestIntegrationOwnerPodGC: with no rbx left to reap, the cluster's
// garbage collector deletes the sandboxes of a force-deleted owner pod.
func TestIntegrationOwnerPodGC(t *testing.T) {
	ctx := context.Background()
	other := k8stest.Runtime(t)
	ownerPod := startOwnerPod(t, other)
	rt, _ := ownedRuntime(t, ownerPod)
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	require.NoError(t, err)

	forceDelete(t, other, ownerPod.Name)
	pods := other.Clientset().CoreV1().Pods(other.Namespace())
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, sb.ID(), metav1.GetOptions{})
		return apierrors.IsNotFound(err) || err == nil && p.DeletionTimestamp != nil
	}, time.Minute, time.Second, "the garbage collector deletes the sandbox pod")
}

// TestIntegrationOwnerPodOtherUID: a pod of the same name but another UID
// (the option misconfigured, or a pod re-created under that name) is not
// the owner's: the option is ignored, no ownerReference is set, since the
// collector would delete the sandbox at once.
func TestIntegrationOwnerPodOtherUID(t *testing.T) {
	ctx := context.Background()
	other := k8stest.Runtime(t)
	ownerPod := startOwnerPod(t, other)
	ownerPod.UID = "00000000-0000-0000-0000-000000000000"
	rt, owner := ownedRuntime(t, ownerPod)
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	require.NoError(t, err)
	p, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Get(ctx, sb.ID(), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.OwnerReferences)
	l := ownerLease(t, rt, owner)
	assert.NotContains(t, l.Annotations, kubernetes.AnnotationPodName)
	beats, err := other.Heartbeats(ctx)
	require.NoError(t, err)
	assert.False(t, sandbox.OwnerDead(owner, beats, time.Now(), sandbox.DefaultHeartbeatMaxAge), "judged by its fresh lease")
}

// ownerLease returns owner's lease.
func ownerLease(t *testing.T, rt *kubernetes.Runtime, owner string) metav1.ObjectMeta {
	t.Helper()
	list, err := rt.Clientset().CoordinationV1().Leases(rt.Namespace()).List(context.Background(),
		metav1.ListOptions{LabelSelector: sandbox.LabelManaged + "=true," + sandbox.LabelHeartbeatOwner + "=" + owner})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	return list.Items[0].ObjectMeta
}

// scopedTo is a runtime restricted to one owner's sandboxes and lease, so
// that Reap leaves everything else on the shared cluster alone; the
// judgment of that lease is the runtime's own Heartbeats.
type scopedTo struct {
	*kubernetes.Runtime
	owner string
}

func (s scopedTo) List(ctx context.Context, sel map[string]string) ([]sandbox.Info, error) {
	all, err := s.Runtime.List(ctx, sel)
	return slices.DeleteFunc(all, func(in sandbox.Info) bool { return in.Labels[sandbox.LabelOwner] != s.owner }), err
}

func (s scopedTo) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	all, err := s.Runtime.Heartbeats(ctx)
	mine := map[string]time.Time{}
	if b, ok := all[s.owner]; ok {
		mine[s.owner] = b
	}
	return mine, err
}
