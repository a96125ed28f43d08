package docker_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// exec runs cmd in sb and returns its trimmed output and exit code.
func execOut(t *testing.T, sb sandbox.Sandbox, cmd string) (string, int) {
	t.Helper()
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: cmd})
	require.NoError(t, err, cmd)
	return strings.TrimSpace(string(res.Output)), res.ExitCode
}

// A policy writing without bound stops at the file-size ulimit, in both
// modes, and the sandbox and the engine carry on.
func TestIntegrationFileSizeBound(t *testing.T) {
	rt := newRuntime(t)
	const bound = 8 << 20
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode, Limits: sandbox.Limits{FileSizeBytes: bound}})
			out, code := execOut(t, sb, "dd if=/dev/zero of=big bs=1M count=1000")
			assert.Equal(t, 128+25, code, "the writer dies of SIGXFSZ: %s", out)
			out, code = execOut(t, sb, "trap '' XFSZ; cat /dev/zero > big2; echo rc=$?")
			assert.Zero(t, code)
			assert.Contains(t, out, "File too large", "with SIGXFSZ ignored, writes fail with EFBIG")
			assert.Contains(t, out, "rc=1")
			out, code = execOut(t, sb, "wc -c < big; wc -c < big2")
			require.Zero(t, code, out)
			assert.Equal(t, []string{strconv.Itoa(bound), strconv.Itoa(bound)}, strings.Fields(out))
			_, err := rt.Client().Ping(context.Background())
			assert.NoError(t, err, "the engine still answers")
		})
	}
}

func TestIntegrationNoFileBound(t *testing.T) {
	rt := newRuntime(t)
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode, Limits: sandbox.Limits{NoFile: 300}})
			out, _ := execOut(t, sb, "ulimit -n; ulimit -Hn")
			assert.Equal(t, "300\n300", out)
		})
	}
}

// With a read-only root the workdir and /tmp are the only writable paths,
// each a tmpfs of DiskBytes: an unbounded write stops there with ENOSPC.
func TestIntegrationReadOnlyRoot(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	sb := newSandbox(t, rt, sandbox.Spec{ReadOnlyRoot: true, Limits: sandbox.Limits{DiskBytes: 16 << 20}})
	for _, tc := range []struct {
		cmd, want string
		code      bool
	}{
		{"touch /etc/x", "Read-only file system", true},
		{"touch /x", "Read-only file system", true},
		{"touch /workspace/x /tmp/x && echo ok", "ok", false},
		{"dd if=/dev/zero of=big bs=1M count=100", "No space left on device", true},
		{"dd if=/dev/zero of=/tmp/big bs=1M count=100", "No space left on device", true},
		{"df -k /workspace /tmp | awk 'NR>1 {print $2}' | sort -u", "16384", false},
	} {
		out, code := execOut(t, sb, tc.cmd)
		assert.Contains(t, out, tc.want, tc.cmd)
		assert.Equal(t, tc.code, code != 0, "%s: exit %d", tc.cmd, code)
	}
	_, _ = execOut(t, sb, "rm -f big /tmp/big")
	fw := sb
	require.NoError(t, fw.WriteFiles(ctx, []sandbox.File{{Path: "a/b.txt", Data: []byte("b")}, {Path: "/tmp/c.txt", Data: []byte("c")}}))
	big := []byte(strings.Repeat("x", 64<<10)) // past the session's size: the archive API
	require.NoError(t, sb.WriteFile(ctx, "d/big.txt", big, 0))
	got, err := sb.ReadFile(ctx, "d/big.txt")
	require.NoError(t, err)
	assert.Len(t, got, len(big))
	out, _ := execOut(t, sb, "cat a/b.txt /tmp/c.txt")
	assert.Equal(t, "bc", out)
	err = fw.WriteFiles(ctx, []sandbox.File{{Path: "/etc/x", Data: []byte("x")}})
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
	assert.Contains(t, err.Error(), "read-only")

	infos, err := rt.List(ctx, map[string]string{"rbx.test": sandbox.LabelValue(t.Name())})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, string(sandbox.DiskBoundReadOnlyRoot), infos[0].Annotations[sandbox.AnnotationDiskBound])
}

// The writable tmpfs of a read-only root start with what the image holds
// there, as a writable root would show it.
func TestIntegrationReadOnlyRootKeepsImageContent(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	base := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec})
	_, code := execOut(t, base, "mkdir -p /app/sub && echo hi > /app/sub/hello.txt && ln /app/sub/hello.txt /app/link")
	require.Zero(t, code)
	img := "rbx/busybox:test-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	_, err := rt.Client().ContainerCommit(ctx, base.ID(), container.CommitOptions{Reference: img})
	t.Cleanup(func() { _, _ = rt.Client().ImageRemove(context.Background(), img, image.RemoveOptions{Force: true}) })
	require.NoError(t, err)

	sb := newSandbox(t, rt, sandbox.Spec{Image: img, ReadOnlyRoot: true, Workdir: "/app", User: "nobody"})
	out, code := execOut(t, sb, "cat sub/hello.txt link; stat -c '%u %a' /app sub/hello.txt; touch new && echo writable")
	require.Zero(t, code, out)
	assert.Equal(t, "hi\nhi\n65534 755\n0 644\nwritable", out)
}

// The bound of a writable root is reported by the runtime and on every
// sandbox, never silently lowered.
func TestIntegrationDiskBoundReported(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	info, err := rt.Client().Info(ctx)
	require.NoError(t, err)
	sb := newSandbox(t, rt, sandbox.Spec{})
	bound, why, err := rt.DiskBound(ctx)
	require.NoError(t, err)
	assert.Contains(t, why, info.Driver)
	t.Logf("storage driver %s: disk bound %s (%s)", info.Driver, bound, why)
	if info.Driver == "fuse-overlayfs" {
		assert.Equal(t, sandbox.DiskBoundFileSize, bound)
	}
	assert.Contains(t, []sandbox.DiskBound{sandbox.DiskBoundStorage, sandbox.DiskBoundFileSize}, bound)
	c, err := rt.Client().ContainerInspect(ctx, sb.ID())
	require.NoError(t, err)
	assert.Equal(t, string(bound), c.Config.Labels[docker.AnnotationPrefix+sandbox.AnnotationDiskBound])
	if bound == sandbox.DiskBoundStorage {
		assert.Equal(t, strconv.Itoa(sandbox.DefaultDisk), c.HostConfig.StorageOpt["size"])
	} else {
		assert.Empty(t, c.HostConfig.StorageOpt)
	}
}

// When the engine refuses the size storage option, Create falls back to
// the file-size bound and says so: a warning, DiskBound, and the
// sandbox's annotation.
func TestIntegrationStorageOptFallback(t *testing.T) {
	dockertest.Skip(t)
	var logs syncBuffer
	rt, err := docker.New(docker.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	t.Cleanup(func() {
		if rt != nil {
			_ = rt.Close()
		}
	})
	require.NoError(t, err)
	ensureImage(t, rt.Client())
	docker.AssumeStorageOpt(rt)
	ctx := context.Background()
	sb := newSandbox(t, rt, sandbox.Spec{Limits: sandbox.Limits{DiskBytes: 64 << 20}})
	c, err := rt.Client().ContainerInspect(ctx, sb.ID())
	require.NoError(t, err)
	bound, why, err := rt.DiskBound(ctx)
	require.NoError(t, err)
	assert.Equal(t, string(bound), c.Config.Labels[docker.AnnotationPrefix+sandbox.AnnotationDiskBound])
	if c.HostConfig.StorageOpt["size"] != "" { // a driver that takes a size: bounded for real
		assert.Equal(t, sandbox.DiskBoundStorage, bound)
		out, code := execOut(t, sb, "dd if=/dev/zero of=big bs=1M count=100")
		assert.NotZero(t, code)
		assert.Contains(t, out, "No space left on device")
		return
	}
	assert.Equal(t, sandbox.DiskBoundFileSize, bound)
	assert.Contains(t, why, "storage-opt")
	assert.Contains(t, logs.String(), "cannot bound a sandbox's writable layer")
	out, code := execOut(t, sb, "echo ok")
	assert.Equal(t, "ok", out)
	assert.Zero(t, code)
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
