package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ns is the namespace the e2e overlay deploys into.
const ns = "rbx-e2e"

// stateVolume makes the PersistentVolume the overlay's claim binds: a
// local volume in the test cluster's state directory (the test cluster has
// no provisioner; a user's cluster has a default storage class), bound to
// the claim ahead (claimRef), on the one node. Kubernetes gives it the
// pod's fsGroup, as a provisioned volume. Cleanup deletes it and its
// directory.
func stateVolume(t testing.TB, cs kubernetes.Interface, kubeconfig string) string {
	t.Helper()
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, nodes.Items)
	host := nodes.Items[0].Labels[corev1.LabelHostname]
	name := ns + "-state"
	dir := filepath.Join(filepath.Dir(kubeconfig), "volumes", name)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.MkdirAll(dir, 0o755))
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: "rbx-state"},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: dir}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{host}}},
			}}}},
		},
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cs.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{})
		_ = poll(ctx, time.Second, func() (bool, error) {
			_, err := cs.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
	_, err = cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	require.NoError(t, err)
	return name
}

// servePod returns the running rbx serve pod that is Ready (not one being
// deleted).
func servePod(ctx context.Context, cs kubernetes.Interface) (*corev1.Pod, error) {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=rbx-serve"})
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return p, nil
			}
		}
	}
	return nil, fmt.Errorf("no ready rbx serve pod among %d", len(pods.Items))
}

// waitServePod waits for a ready rbx serve pod other than not (a UID).
func waitServePod(t testing.TB, cs kubernetes.Interface, not string, within time.Duration) *corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var pod *corev1.Pod
	err := poll(ctx, time.Second, func() (bool, error) {
		p, err := servePod(ctx, cs)
		if err != nil || string(p.UID) == not {
			return false, nil
		}
		pod = p
		return true, nil
	})
	if err != nil {
		dumpPods(t, cs)
	}
	require.NoError(t, err, "waiting for a ready rbx serve pod")
	return pod
}

// dumpPods logs the namespace's pods and the rbx serve logs' tail, for a
// failure's reader.
func dumpPods(t testing.TB, cs kubernetes.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Logf("list pods: %v", err)
		return
	}
	for _, p := range pods.Items {
		t.Logf("pod %s phase %s conditions %v", p.Name, p.Status.Phase, p.Status.Conditions)
		for _, c := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			t.Logf("  container %s ready=%v restarts=%d state=%+v", c.Name, c.Ready, c.RestartCount, c.State)
		}
		if p.Labels["app.kubernetes.io/name"] == "" {
			continue
		}
		tail := int64(30)
		for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
			b, err := cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: c.Name, TailLines: &tail}).DoRaw(ctx)
			t.Logf("  logs of %s/%s (err %v):\n%s", p.Name, c.Name, err, b)
		}
	}
}

// poll calls f every interval until it reports done, fails, or ctx ends.
func poll(ctx context.Context, interval time.Duration, f func() (bool, error)) error {
	for {
		done, err := f()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// teardown deletes the namespace (rbx serve drains, its sandbox pods, the
// claim and the lease go with it) and waits until it is gone.
func teardown(t testing.TB, cs kubernetes.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete namespace %s: %v", ns, err)
		return
	}
	err = poll(ctx, time.Second, func() (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		dumpPods(t, cs)
		t.Errorf("namespace %s still there after teardown: %v", ns, err)
	}
}
