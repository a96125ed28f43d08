package kubernetes_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/sandbox/registrytest"
)

// TestIntegrationPullPolicy: rbx's busybox image, pushed to a registry on
// loopback (started here) and absent from the node, is refused under
// "never" with a typed image-missing error, pulled by the cluster's
// containerd over plain HTTP under "missing" and "always" (tools image and
// sandbox image alike: the whole pod comes from the registry), then found
// on the node under "never", and a
// stopped registry is a typed pull_failed error under "always", all
// without waiting for the start timeout.
func TestIntegrationPullPolicy(t *testing.T) {
	k8stest.Runtime(t) // skips without a cluster
	reg := registrytest.Start(t, k8stest.Required())
	k8stest.TrustRegistry(t, reg.Host)
	ref := reg.Host + "/rbx/busybox:pull-" + sandbox.LabelValue(time.Now().Format("150405.000"))
	registrytest.Push(t, dockertest.Runtime(t, busyboxImage).Client(), busyboxImage, ref)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	tests := []struct {
		name   string
		pull   sandbox.PullPolicy
		stop   bool    // the registry is stopped first
		is     []error // the Create error's sentinels; none: it runs
		pulled bool    // the kubelet reports a pull, not an image already present
	}{
		{"never, absent", sandbox.PullNever, false, []error{sandbox.ErrImageMissing}, false},
		{"missing, pulled", sandbox.PullMissing, false, nil, true},
		{"always, pulled again", sandbox.PullAlways, false, nil, true},
		{"never, present", sandbox.PullNever, false, nil, false},
		{"always, registry down", sandbox.PullAlways, true, []error{sandbox.ErrPullFailed}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.stop {
				reg.Stop()
			}
			rt := k8stest.Runtime(t, kubernetes.WithPullPolicy(tc.pull), kubernetes.WithToolsImage(ref),
				kubernetes.WithStartTimeout(90*time.Second))
			t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
			start := time.Now()
			sb, err := rt.Create(ctx, sandbox.Spec{Image: ref, Mode: sandbox.ModeExec,
				Labels: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}})
			t.Cleanup(func() {
				if sb != nil {
					assert.NoError(t, sb.Remove(context.Background()))
				}
			})
			if len(tc.is) > 0 {
				assertFailedFast(t, err, start, tc.is...)
				return
			}
			require.NoError(t, err)
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo ran"})
			require.NoError(t, err)
			assert.Equal(t, "ran\n", string(res.Output))
			want := "Successfully pulled image \"" + ref + "\""
			if !tc.pulled {
				want = "Container image \"" + ref + "\" already present on machine"
			}
			assert.Eventually(t, func() bool { return podEvent(ctx, rt, sb.ID(), want) }, 20*time.Second, 200*time.Millisecond,
				"the kubelet reports: %s", want)
		})
	}
}

// podEvent reports whether the kubelet recorded a Pulled event for pod
// whose message holds msg.
func podEvent(ctx context.Context, rt *kubernetes.Runtime, pod, msg string) bool {
	sel := fields.Set{"involvedObject.name": pod, "reason": "Pulled"}.AsSelector().String()
	evs, err := rt.Clientset().CoreV1().Events(rt.Namespace()).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return false
	}
	for _, e := range evs.Items {
		if e.Type == corev1.EventTypeNormal && strings.Contains(e.Message, msg) {
			return true
		}
	}
	return false
}
