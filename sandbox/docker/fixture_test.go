package docker_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// testImage is a busybox rootfs imported by ensureImage. It is kept between
// runs (and shared with anything else that wants a tiny image).
// testImage's tag changes with its content: an image of that name is not
// built again (v2: /etc/shadow).
const testImage = "rbx/busybox:test-docker-v2"

var imageMu sync.Mutex

// newRuntime returns a docker runtime with the test image present, or skips
// when no engine answers.
func newRuntime(tb testing.TB) *docker.Runtime {
	tb.Helper()
	dockertest.Skip(tb)
	rt, err := docker.New()
	tb.Cleanup(func() {
		if rt != nil {
			_ = rt.Close()
		}
	})
	require.NoError(tb, err)
	ensureImage(tb, rt.Client())
	return rt
}

// newSandbox creates a sandbox from spec (test image by default), labelled
// with the test's name and removed at the end of the test.
func newSandbox(tb testing.TB, rt *docker.Runtime, spec sandbox.Spec) sandbox.Sandbox {
	tb.Helper()
	if spec.Image == "" {
		spec.Image = testImage
	}
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels["rbx.test"] = sandbox.LabelValue(tb.Name()) // subtest names hold "/"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sb, err := rt.Create(ctx, spec)
	tb.Cleanup(func() {
		if sb != nil {
			assert.NoError(tb, sb.Remove(context.Background()))
		}
	})
	require.NoError(tb, err)
	return sb
}

// ensureImage imports a busybox rootfs built from the host's static busybox
// as testImage unless it already exists.
func ensureImage(tb testing.TB, cli *client.Client) { importImage(tb, cli, testImage, nil) }

// tarFile is an extra file of a test image.
type tarFile struct {
	mode int64
	data []byte
}

// importImage imports ref, a busybox rootfs with extra files by path
// (busyboxRootfsWith), unless it already exists.
func importImage(tb testing.TB, cli *client.Client, ref string, extra map[string]tarFile) {
	tb.Helper()
	imageMu.Lock()
	defer imageMu.Unlock()
	ctx := context.Background()
	if _, err := cli.ImageInspect(ctx, ref); err == nil {
		return
	}
	rootfs, err := busyboxRootfsWith(extra)
	require.NoError(tb, err, "build busybox rootfs (apt-get install busybox-static)")
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: rootfs, SourceName: "-"}, ref,
		image.ImportOptions{Changes: []string{`CMD ["/bin/sh"]`}})
	require.NoError(tb, err)
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	require.NoError(tb, err)
}

// busyboxRootfs returns a tar of /bin/busybox, a symlink per applet and the
// few directories and files a shell expects.
func busyboxRootfs() (io.Reader, error) { return busyboxRootfsWith(nil) }

// busyboxRootfsWith is busyboxRootfs plus extra regular files by path (a
// setuid one, for example).
func busyboxRootfsWith(extra map[string]tarFile) (io.Reader, error) {
	bin, err := os.ReadFile("/bin/busybox")
	if err != nil {
		return nil, err
	}
	list, err := exec.Command("/bin/busybox", "--list").Output()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	dirs := map[string]int64{"bin": 0o755, "etc": 0o755, "root": 0o700, "tmp": 0o1777, "proc": 0o555, "sys": 0o555, "dev": 0o755}
	for _, d := range []string{"bin", "etc", "root", "tmp", "proc", "sys", "dev"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: dirs[d], ModTime: now}); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{
		"bin/busybox": bin,
		"etc/passwd":  []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n"),
		"etc/group":   []byte("root:x:0:\nnogroup:x:65534:\n"),
	}
	files["etc/shadow"] = []byte("root:*:19000:0:99999:7:::\n")
	for _, name := range []string{"bin/busybox", "etc/passwd", "etc/group", "etc/shadow"} {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(files[name])), ModTime: now}
		switch name {
		case "bin/busybox":
			h.Mode = 0o755
		case "etc/shadow":
			h.Mode = 0o640 // root's alone: the read a user is refused (sandboxtest.testFileAccess)
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[name]); err != nil {
			return nil, err
		}
	}
	for name, f := range extra {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: f.mode, Size: int64(len(f.data)), ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	for _, applet := range strings.Fields(string(list)) {
		if applet == "busybox" || strings.Contains(applet, "/") {
			continue
		}
		h := &tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + applet, Linkname: "busybox", Mode: 0o777, ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}
