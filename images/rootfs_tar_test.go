package images

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteRootfsTar(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "usr/bin"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(root, "tmp"), 0o755))
	require.NoError(t, os.Chmod(filepath.Join(root, "tmp"), os.ModeSticky|0o777))
	require.NoError(t, os.WriteFile(filepath.Join(root, "usr/bin/tool"), []byte("#!/bin/sh\n"), 0o755))
	// chown clears setuid, so it comes first.
	require.NoError(t, os.Chown(filepath.Join(root, "usr/bin/tool"), 1234, 5678))
	require.NoError(t, os.Chmod(filepath.Join(root, "usr/bin/tool"), os.ModeSetuid|0o755))
	require.NoError(t, os.Link(filepath.Join(root, "usr/bin/tool"), filepath.Join(root, "usr/bin/tool2")))
	require.NoError(t, os.Symlink("usr/bin", filepath.Join(root, "bin")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600))

	var buf bytes.Buffer
	require.NoError(t, writeRootfsTar(context.Background(), &buf, root))

	hdrs := map[string]*tar.Header{}
	var order []string
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			body, err := io.ReadAll(tr)
			require.NoError(t, err)
			assert.Equal(t, "#!/bin/sh\n", string(body))
		}
		hdrs[h.Name], order = h, append(order, h.Name)
	}
	assert.Equal(t, []string{"bin", "fifo", "tmp/", "usr/", "usr/bin/", "usr/bin/tool", "usr/bin/tool2"}, order)

	assert.Equal(t, byte(tar.TypeSymlink), hdrs["bin"].Typeflag)
	assert.Equal(t, "usr/bin", hdrs["bin"].Linkname)
	assert.Equal(t, byte(tar.TypeFifo), hdrs["fifo"].Typeflag)
	assert.Equal(t, byte(tar.TypeDir), hdrs["tmp/"].Typeflag)
	assert.Equal(t, int64(0o1777), hdrs["tmp/"].Mode&0o7777)

	tool := hdrs["usr/bin/tool"]
	assert.Equal(t, byte(tar.TypeReg), tool.Typeflag)
	assert.Equal(t, int64(0o4755), tool.Mode&0o7777)
	assert.Equal(t, []int{1234, 5678}, []int{tool.Uid, tool.Gid})
	assert.Empty(t, tool.Uname, "host user names must not leak")
	assert.Equal(t, int64(10), tool.Size)

	link := hdrs["usr/bin/tool2"]
	assert.Equal(t, byte(tar.TypeLink), link.Typeflag)
	assert.Equal(t, "usr/bin/tool", link.Linkname)
	assert.Zero(t, link.Size)
}

func TestWriteRootfsTarSkipsDevices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	root := t.TempDir()
	require.NoError(t, syscall.Mknod(filepath.Join(root, "null"), syscall.S_IFCHR|0o666, 1<<8|3))
	var buf bytes.Buffer
	require.NoError(t, writeRootfsTar(context.Background(), &buf, root))
	_, err := tar.NewReader(&buf).Next()
	assert.ErrorIs(t, err, io.EOF, "device node must be skipped")
}

func TestWriteRootfsTarCancelled(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "f"), nil, 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := writeRootfsTar(ctx, io.Discard, root)
	assert.ErrorIs(t, err, context.Canceled)
}
