package kubernetes

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestWithOwnerPod(t *testing.T) {
	var c config
	require.NoError(t, WithOwnerPod("rbx-serve-7d9f-abcde", "0b6c1a2e-1111-2222-3333-444455556666")(&c))
	require.NotNil(t, c.ownerPod)
	assert.Equal(t, "rbx-serve-7d9f-abcde", c.ownerPod.name)
	assert.EqualValues(t, "0b6c1a2e-1111-2222-3333-444455556666", c.ownerPod.uid)
	assert.Error(t, WithOwnerPod("", "u")(&config{}), "no name")
	assert.Error(t, WithOwnerPod("Not_A_Pod", "u")(&config{}), "not a pod name")
	assert.Error(t, WithOwnerPod("p", "")(&config{}), "no uid")
}

// TestOwnerPodGone: only a pod that is not found, or found with another
// UID, is gone; any error that tells nothing, Forbidden first, is not.
func TestOwnerPodGone(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	same := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u1"}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u2"}}
	assert.True(t, ownerPodGone("u1", nil, apierrors.NewNotFound(pods, "p")), "not found")
	assert.True(t, ownerPodGone("u1", other, nil), "another pod of that name")
	assert.False(t, ownerPodGone("u1", same, nil), "the pod itself")
	assert.False(t, ownerPodGone("u1", nil, apierrors.NewForbidden(pods, "p", errors.New("rbac"))), "forbidden: cannot tell")
	assert.False(t, ownerPodGone("u1", nil, apierrors.NewServiceUnavailable("down")), "API down: cannot tell")
	assert.False(t, ownerPodGone("u1", nil, context.DeadlineExceeded), "timeout: cannot tell")
}

// forbidPods makes every pod get of cs fail as RBAC without pods get does.
func forbidPods(cs *fake.Clientset) {
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, a.(k8stesting.GetAction).GetName(), errors.New("rbac"))
	})
}

// TestHeartbeatsOwnerPodForbidden: a lease naming a pod rbx may not read
// keeps its renewal as the beat, so its owner is not taken for dead.
func TestHeartbeatsOwnerPodForbidden(t *testing.T) {
	const owner = "rbx-serve-abc_1_42"
	renew := metav1.NewMicroTime(time.Now().Add(-time.Second).Truncate(time.Second))
	l := newLease("ns", leaseName(owner), owner, renew)
	l.Annotations = map[string]string{AnnotationPodName: "rbx-serve-abc", AnnotationPodUID: "u1"}
	cs := fake.NewClientset(l)
	forbidPods(cs)
	r := testRuntime(sandbox.PullNever)
	r.cs, r.cfg.log = cs, slog.New(slog.DiscardHandler)

	beats, err := r.Heartbeats(context.Background())
	require.NoError(t, err)
	require.Contains(t, beats, owner)
	assert.True(t, renew.Time.Equal(beats[owner]), "the renewal, not a dead owner's zero time: %v", beats[owner])
	assert.False(t, sandbox.OwnerDead(owner, beats, time.Now(), sandbox.DefaultHeartbeatMaxAge))

}

// TestOwnerPodForbidden: a pod this process cannot read is not trusted as
// its own: no ownerReference (one to a pod of another namespace gets the
// sandbox deleted by the garbage collector) and no lease annotation.
func TestOwnerPodForbidden(t *testing.T) {
	cs := fake.NewClientset()
	forbidPods(cs)
	r := testRuntime(sandbox.PullNever)
	r.cs, r.cfg.log = cs, slog.New(slog.DiscardHandler)
	require.NoError(t, WithOwnerPod("rbx-serve-abc", "u1")(&r.cfg))

	pod := &corev1.Pod{}
	r.ownedByPod(context.Background(), pod)
	assert.Empty(t, pod.OwnerReferences)
	l := &coordv1.Lease{}
	r.annotateLease(context.Background(), r.cfg.owner, l)
	assert.Empty(t, l.Annotations)
}
