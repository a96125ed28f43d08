package images

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteBusyboxTar(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "busybox")
	require.NoError(t, os.WriteFile(bin, []byte("ELF"), 0o755))
	var buf bytes.Buffer
	applets := []string{"bin/busybox", "bin/ls", "usr/sbin/chroot", "/usr/bin/awk", "bin/ls"}
	require.NoError(t, writeBusyboxTar(&buf, bin, applets))

	hdrs := map[string]*tar.Header{}
	bodies := map[string]string{}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.NotContains(t, hdrs, h.Name, "duplicate entry")
		hdrs[h.Name] = h
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		bodies[h.Name] = string(b)
	}
	for _, d := range []string{"bin/", "etc/", "usr/", "usr/bin/", "usr/sbin/", "root/", "tmp/", "workspace/"} {
		if assert.Contains(t, hdrs, d) {
			assert.Equal(t, byte(tar.TypeDir), hdrs[d].Typeflag, d)
		}
	}
	assert.Equal(t, int64(0o1777), hdrs["tmp/"].Mode)
	for _, l := range []string{"bin/sh", "bin/ls", "usr/sbin/chroot", "usr/bin/awk"} {
		if assert.Contains(t, hdrs, l) {
			assert.Equal(t, byte(tar.TypeSymlink), hdrs[l].Typeflag, l)
			assert.Equal(t, "/bin/busybox", hdrs[l].Linkname, l)
		}
	}
	assert.Equal(t, byte(tar.TypeReg), hdrs["bin/busybox"].Typeflag)
	assert.Equal(t, int64(0o755), hdrs["bin/busybox"].Mode)
	assert.Equal(t, "ELF", bodies["bin/busybox"])
	assert.Contains(t, bodies["etc/passwd"], "root:x:0:0:root:/root:/bin/sh\n")
	assert.Contains(t, bodies["etc/group"], "root:x:0:\n")
}

func TestIsStatic(t *testing.T) {
	assert.Error(t, isStatic("/nonexistent"))
	if _, err := os.Stat("/bin/bash"); err == nil {
		assert.ErrorContains(t, isStatic("/bin/bash"), "dynamically linked")
	}
}
