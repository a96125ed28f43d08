package kubernetes_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationReapStaleHeartbeat: gc judges owners elsewhere by their
// Lease in the namespace (sandboxtest.RunHeartbeat).
func TestIntegrationReapStaleHeartbeat(t *testing.T) {
	rt := k8stest.Runtime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	sandboxtest.RunHeartbeat(t, rt, sandbox.Spec{Image: busyboxImage}, func(t *testing.T, owner string) sandbox.Runtime {
		return k8stest.Runtime(t, kubernetes.WithOwner(owner), kubernetes.WithHeartbeatEvery(time.Hour))
	})
}

// TestIntegrationHeartbeatLease: the first Create renews a Lease named
// after the owner and labelled rbx.managed, held by the owner; Close
// deletes it once the owner has no pod left.
func TestIntegrationHeartbeatLease(t *testing.T) {
	const owner = "rbx-lease-test_4243_1"
	rt := k8stest.Runtime(t, kubernetes.WithOwner(owner))
	ctx := context.Background()
	leases := rt.Clientset().CoordinationV1().Leases(rt.Namespace())
	t.Cleanup(func() { assert.NoError(t, rt.ForgetHeartbeat(context.Background(), owner)) })

	beats, err := rt.Heartbeats(ctx)
	require.NoError(t, err)
	require.NotContains(t, beats, owner, "no lease before the first Create")

	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: sandbox.LabelManaged + "=true," + sandbox.LabelHeartbeatOwner + "=" + owner})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	l := list.Items[0]
	require.NotNil(t, l.Spec.HolderIdentity)
	assert.Equal(t, owner, *l.Spec.HolderIdentity)
	require.NotNil(t, l.Spec.RenewTime)
	assert.WithinDuration(t, time.Now(), l.Spec.RenewTime.Time, time.Minute)

	require.NoError(t, rt.Close())
	_, err = leases.Get(ctx, l.Name, metav1.GetOptions{})
	require.NoError(t, err, "the owner still has a pod: the lease stays")

	require.NoError(t, sb.Remove(ctx))
	sb = nil
	require.NoError(t, rt.Close())
	beats, err = rt.Heartbeats(ctx)
	require.NoError(t, err)
	assert.NotContains(t, beats, owner, "a clean exit deletes the lease")
}
