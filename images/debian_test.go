package images

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
)

func TestIntegrationDebianFailureCleansUp(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "debootstrap needs root (building rbx/debian:bookworm does too)")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		testenv.Missing(t, "debootstrap is not installed (the builder installs it; this test does not)")
	}
	cache := t.TempDir()
	// Nothing listens on port 1 of loopback: debootstrap fails at once.
	b, err := NewBuilder(&fakeEngine{}, WithCacheDir(cache), WithMirror("http://127.0.0.1:1/debian"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, _ := Lookup("rbx/debian:bookworm")
	err = b.buildDebianTar(ctx, b.cachedTar(r))
	require.Error(t, err)
	assert.ErrorContains(t, err, "debootstrap")

	left, err := filepath.Glob(filepath.Join(cache, "images", "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(cache, "images", "rbx-debian-bookworm-v1.log")}, left,
		"scratch dir and partial tarball must be gone, the log kept")
}

func TestDebianScriptIsLinked(t *testing.T) {
	// scripts/ holds a link for manual use; it must point at the embedded copy.
	got, err := os.ReadFile("../scripts/build-debian-rootfs.sh")
	require.NoError(t, err)
	assert.Equal(t, string(debianScript), string(got))
}
