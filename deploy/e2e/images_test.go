package e2e_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// testImages are the images the deployment runs, built from the
// repository and imported into the test cluster, named by content.
type testImages struct {
	server, otp     string
	tasks1, tasks2  string
	extraTask       string // the task the second tasks image adds
	extraTaskFolder string
}

// buildImages builds the server image from deploy/kubernetes/Dockerfile
// over a static rbx, deploy-otp's service, and two tags of a tasks image
// from tasks.Dockerfile: every example, then the same plus one task.
func buildImages(t testing.TB, root string) testImages {
	t.Helper()
	bin := t.TempDir()
	goBuild(t, root, filepath.Join(bin, "rbx"), "./cmd/rbx")
	goBuild(t, root, filepath.Join(bin, "otp-server"), "./examples/deploy-otp/otp-server")

	server := t.TempDir()
	copyFile(t, filepath.Join(root, "deploy/kubernetes/Dockerfile"), filepath.Join(server, "Dockerfile"))
	require.NoError(t, os.MkdirAll(filepath.Join(server, "bin"), 0o755))
	copyFile(t, filepath.Join(bin, "rbx"), filepath.Join(server, "bin/rbx"))

	otp := t.TempDir()
	copyFile(t, filepath.Join(bin, "otp-server"), filepath.Join(otp, "otp-server"))
	require.NoError(t, os.WriteFile(filepath.Join(otp, "Dockerfile"),
		[]byte("FROM rbx/busybox:latest\nCOPY otp-server /otp-server\nUSER 65534:65534\nENTRYPOINT [\"/otp-server\"]\n"), 0o644))

	tasks1 := tasksContext(t, root)
	tasks2 := tasksContext(t, root)
	extra := "hello-image"
	require.NoError(t, os.MkdirAll(filepath.Join(tasks2, "tasks", extra), 0o755))
	helloTask(t, root, extra, filepath.Join(tasks2, "tasks", extra))

	imgs := testImages{
		server: tag(t, "rbx.local/server", server), otp: tag(t, "rbx.local/otp", otp),
		tasks1: tag(t, "rbx.local/tasks", tasks1), tasks2: tag(t, "rbx.local/tasks", tasks2),
		extraTask: extra, extraTaskFolder: extra,
	}
	for ref, dir := range map[string]string{imgs.server: server, imgs.otp: otp, imgs.tasks1: tasks1, imgs.tasks2: tasks2} {
		k8stest.BuildImage(t, dir, ref)
	}
	return imgs
}

// tasksContext is a build context of tasks.Dockerfile holding every
// bundled example under tasks/.
func tasksContext(t testing.TB, root string) string {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, filepath.Join(root, "deploy/kubernetes/tasks.Dockerfile"), filepath.Join(dir, "Dockerfile"))
	require.NoError(t, examples.Extract(filepath.Join(dir, "tasks")))
	return dir
}

// helloTask writes the ConfigMap's hello task as a task folder under
// another id: task.yaml and trajectory.json.
func helloTask(t testing.TB, root, id, dir string) {
	t.Helper()
	src := filepath.Join(root, "deploy/e2e/configmap-tasks")
	task, err := os.ReadFile(filepath.Join(src, "hello.yaml"))
	require.NoError(t, err)
	ref, err := os.ReadFile(filepath.Join(src, "hello.json"))
	require.NoError(t, err)
	task = append([]byte("id: "+id+"\n"), dropLine(task, "id: hello")...)
	ref = replaceAll(ref, `"task": "hello.yaml"`, `"task": "task.yaml"`)
	ref = replaceAll(ref, `"id": "hello-ref"`, `"id": "`+id+`-ref"`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), task, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trajectory.json"), ref, 0o644))
}

// tag names a build context's image by its content, so that a changed
// context is built anew and an unchanged one is not.
func tag(t testing.TB, name, dir string) string {
	t.Helper()
	h := sha256.New()
	require.NoError(t, images.ContextTar(dir, h))
	return name + ":" + hex.EncodeToString(h.Sum(nil))[:12]
}

// goBuild builds a static binary of pkg (the server image has no libc).
func goBuild(t testing.TB, root, out, pkg string) {
	t.Helper()
	cmd := exec.Command(goCommand(), "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, b)
}

func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	info, err := os.Stat(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, info.Mode().Perm()))
}
