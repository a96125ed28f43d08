// Package e2e_test deploys rbx serve on the test cluster from the
// repository's manifests (deploy/kubernetes, through this directory's overlay) and
// drives it through its Service as a trainer outside the cluster would.
package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/server/api"
)

// exampleTasks are the bundled examples, each played 20 times.
var exampleTasks = []string{"run-sh-path", "fix-tests", "deploy-otp"}

// TestIntegrationDeployment: deploy from the manifests; 10 episodes of
// every example through the Service; the server pod deleted (grace 0: no
// drain) with episodes open; a new pod resumes the curriculum from the
// state volume, resumes the open episodes (rebuilt by replay at their
// next call) and reaps the sandbox pods of the old one; 10 more of each succeed; a second tag of the tasks image
// adds a task, served without a restart; after teardown nothing of rbx is
// left.
func TestIntegrationDeployment(t *testing.T) {
	d := deploy(t)
	cs, p, pod, app, root, imgs := d.cs, d.p, d.pod, d.app, d.root, d.imgs
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()

	t0 := time.Now()
	allSucceeded(t, p.play(ctx, exampleTasks, 10, 3), 30)
	t.Logf("30 episodes in %v", time.Since(t0).Round(time.Millisecond))
	allSucceeded(t, p.play(ctx, []string{"hello"}, 2, 2), 2) // the ConfigMap's task
	before := curricula(t, p, exampleTasks)

	// Mid-load: an episode of each example open, a step played, when the
	// server pod goes without a drain.
	var open []string
	for _, task := range exampleTasks {
		ep, _, err := p.open(ctx, task, 1)
		require.NoError(t, err)
		open = append(open, ep.ID)
	}
	left := sandboxPods(t, cs)
	require.NotEmpty(t, left)
	grace := int64(0)
	require.NoError(t, cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}))
	restart := time.Now()
	next := waitServePod(t, cs, string(pod.UID), 4*time.Minute)
	waitHealthy(t, p, 2*time.Minute)
	t.Logf("new server pod %s ready and answering %v after the delete", next.Name, time.Since(restart).Round(time.Millisecond))

	// The episodes open at the delete resume on the new pod under their
	// ids: the next call rebuilds the sandbox by replay (the reference to
	// k, then the step the episode played) and goes on.
	var health struct {
		Lost int `json:"lost_at_start"`
	}
	require.NoError(t, p.getJSON(ctx, "/healthz", &health))
	assert.Zero(t, health.Lost, "no episode open at the delete is lost")
	sr, err := p.c.Step(ctx, open[0], api.StepRequest{ToolCall: &api.ToolCall{Name: "shell", Arguments: json.RawMessage(`{"command": "true"}`)}})
	require.NoError(t, err, "the episode open at the delete goes on")
	assert.Equal(t, 1, sr.Info.Recovered, "rebuilt once, after the restart")
	for _, id := range open { // closed, not evaluated: the curriculum stays as it was
		require.NoError(t, p.c.Close(ctx, id))
	}
	assert.Equal(t, before, curricula(t, p, exampleTasks), "the curriculum resumed from the state volume as it was")
	gone(t, cs, left, 90*time.Second)

	t0 = time.Now()
	allSucceeded(t, p.play(ctx, exampleTasks, 10, 3), 30)
	t.Logf("30 more episodes on the new pod in %v", time.Since(t0).Round(time.Millisecond))
	after := curricula(t, p, exampleTasks)
	for _, task := range exampleTasks {
		assert.Equal(t, episodes(before[task])+10, episodes(after[task]), "task %s: the 10 new outcomes add to the resumed ones", task)
	}

	// A second tag of the tasks image, with one more task: rolled out, the
	// task is served by the same server pod.
	require.NoError(t, app.apply(ctx, render(t, root, imgs, imgs.tasks2)))
	t0 = time.Now()
	waitTasks(t, cs, p, []string{imgs.extraTask}, 3*time.Minute)
	t.Logf("the tasks image's new task served %v after the rollout", time.Since(t0).Round(time.Millisecond))
	cur, err := servePod(ctx, cs)
	require.NoError(t, err)
	assert.Equal(t, next.UID, cur.UID, "served without a new server pod")
	for _, c := range cur.Status.ContainerStatuses {
		assert.Zero(t, c.RestartCount, "container %s restarted", c.Name)
	}
	allSucceeded(t, p.play(ctx, []string{imgs.extraTask}, 2, 2), 2)
}

// deployed is rbx serve deployed from the manifests, and a client.
type deployed struct {
	cs   kubernetes.Interface
	app  *applier
	p    *player
	pod  *corev1.Pod
	root string
	imgs testImages
}

// deploy builds the images, makes the state volume, applies the e2e
// overlay with the first tasks image, and waits until rbx serve answers
// through its Service with every task; teardown (then the check that
// nothing is left) is registered.
func deploy(t testing.TB) *deployed {
	t.Helper()
	kc := k8stest.Kubeconfig(t)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	imgs := buildImages(t, root)
	app := newApplier(t, cfg)
	t.Cleanup(func() { nothingLeft(t, cs) }) // runs last
	stateVolume(t, cs, kc)
	t.Cleanup(func() { teardown(t, cs) }) // before the volume goes
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, app.apply(ctx, render(t, root, imgs, imgs.tasks1)))
	pod := waitServePod(t, cs, "", 4*time.Minute)
	svc, err := cs.CoreV1().Services(ns).Get(ctx, "rbx-serve", metav1.GetOptions{})
	require.NoError(t, err)
	p, err := newPlayer(fmt.Sprintf("http://%s:8700", svc.Spec.ClusterIP), "e2e-token")
	require.NoError(t, err)
	waitTasks(t, cs, p, append(slices.Clone(exampleTasks), "hello"), 3*time.Minute)
	t.Logf("deployed and serving every task in %v", time.Since(start).Round(time.Second))
	return &deployed{cs: cs, app: app, p: p, pod: pod, root: root, imgs: imgs}
}

// allSucceeded checks that every one of the n outcomes succeeded.
func allSucceeded(t testing.TB, out []outcome, n int) {
	t.Helper()
	require.Len(t, out, n)
	for _, o := range out {
		if assert.NoError(t, o.err, "task %s", o.task) {
			assert.True(t, o.success, "task %s at k=%d: the reference's own actions failed the verifier", o.task, o.k)
		}
	}
}

// waitTasks waits until the server serves every one of ids.
func waitTasks(t testing.TB, cs kubernetes.Interface, p *player, ids []string, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var have []string
	err := poll(ctx, time.Second, func() (bool, error) {
		tasks, err := p.c.Tasks(ctx)
		if err != nil {
			return false, nil
		}
		have = have[:0]
		for _, tk := range tasks {
			have = append(have, tk.ID)
		}
		for _, id := range ids {
			if !slices.Contains(have, id) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		dumpPods(t, cs)
	}
	require.NoError(t, err, "waiting for tasks %v; served: %v", ids, have)
}

// waitHealthy waits until /healthz answers through the Service.
func waitHealthy(t testing.TB, p *player, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last error
	err := poll(ctx, 500*time.Millisecond, func() (bool, error) {
		var h map[string]any
		last = p.getJSON(ctx, "/healthz", &h)
		return last == nil, nil
	})
	require.NoError(t, err, "rbx serve through its Service: %v", last)
}

// curricula returns the curriculum state of each task.
func curricula(t testing.TB, p *player, tasks []string) map[string]curriculum.Status {
	t.Helper()
	out := map[string]curriculum.Status{}
	for _, id := range tasks {
		ts, err := p.c.Task(context.Background(), id)
		require.NoError(t, err)
		out[id] = ts.Curriculum
	}
	return out
}

// episodes counts a curriculum's outcomes.
func episodes(st curriculum.Status) int {
	n := 0
	for _, c := range st.Checkpoints {
		n += c.Episodes
	}
	return n
}

// sandboxPods lists the names of rbx's sandbox pods in the namespace.
func sandboxPods(t testing.TB, cs kubernetes.Interface) []string {
	t.Helper()
	pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "rbx.managed=true"})
	require.NoError(t, err)
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	return names
}

// gone waits until none of the pods named is left.
func gone(t testing.TB, cs kubernetes.Interface, names []string, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var still []string
	err := poll(ctx, time.Second, func() (bool, error) {
		still = still[:0]
		for _, n := range sandboxPods(t, cs) {
			if slices.Contains(names, n) {
				still = append(still, n)
			}
		}
		return len(still) == 0, nil
	})
	assert.NoError(t, err, "the old server's sandbox pods still there: %v", still)
}

// nothingLeft checks, after teardown, that no pod, lease, claim or volume
// of the deployment is left in the cluster.
func nothingLeft(t testing.TB, cs kubernetes.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "metadata.namespace=" + ns})
	if assert.NoError(t, err) {
		assert.Empty(t, pods.Items, "pods left in %s", ns)
	}
	leases, err := cs.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
	if assert.NoError(t, err) {
		assert.Empty(t, leases.Items, "leases left in %s", ns)
	}
	pvcs, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	if assert.NoError(t, err) {
		assert.Empty(t, pvcs.Items, "claims left in %s", ns)
	}
	pvs, err := cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if assert.NoError(t, err) {
		for _, pv := range pvs.Items {
			if pv.Spec.ClaimRef != nil {
				assert.NotEqual(t, ns, pv.Spec.ClaimRef.Namespace, "volume %s of %s left", pv.Name, ns)
			}
		}
	}
}
