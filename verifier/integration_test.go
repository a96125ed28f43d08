package verifier_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/verifier"
)

// debian has bash and GNU tools, which a session finds on PATH (busybox's
// shell runs its own applets first).
const debian = "rbx/debian:bookworm"

// plant is an episode step that does its worst to anything that would
// copy files through its session: corrupting base64, tar and cat first on
// the image's PATH, the same and more first on the session's PATH, shell
// functions in their place, another cwd, and a symlink where a verifier
// file will land.
const plant = `mkdir -p /evil /usr/local/bin /tests && for t in base64 tar cat mkdir chmod mv cp; do
  printf '#!/bin/sh\necho corrupted\n' > /evil/$t; chmod +x /evil/$t; done
for t in base64 tar cat; do cp /evil/$t /usr/local/bin/$t; done
ln -s /workspace/stolen /tests/data.bin
export PATH=/evil:$PATH
base64() { echo corrupted; }; cat() { echo corrupted; }
cd /`

// TestIntegrationVerifierFilesSurviveTamperedSession: the verifier's files
// arrive intact, with their modes, after an episode step tampered with its
// session and the image's tools; they are compared through a clean exec
// with absolute paths, never through the session.
func TestIntegrationVerifierFilesSurviveTamperedSession(t *testing.T) {
	rt := dockertest.Runtime(t, debian)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	data := make([]byte, 64<<10) // above the size the session used to take
	for i := range data {
		data[i] = byte(i * 7)
	}
	sum := md5.Sum(data)
	check := "#!/bin/sh\n[ \"$(/usr/bin/md5sum /tests/data.bin)\" = '" + hex.EncodeToString(sum[:]) + "  /tests/data.bin' ]\n"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "check.sh"), []byte(check), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "data.bin"), data, 0o640))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "small.txt"), []byte("small\n"), 0o644))
	tk := &task.Task{ID: "tampered-session", Dir: dir, Image: debian,
		Verify: task.Verify{Command: "/tests/check.sh", Files: map[string]string{"tests/": "/tests/"}}}

	spec := provision.Spec(tk)
	spec.Labels["rbx.test"] = sandbox.LabelValue(t.Name())
	sb, err := rt.Create(ctx, spec)
	t.Cleanup(func() {
		if sb != nil {
			assert.NoError(t, sb.Remove(context.Background()))
		}
	})
	require.NoError(t, err)
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: plant})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%s", res.Output)

	v, err := verifier.Run(ctx, sb, tk)
	require.NoError(t, err)
	assert.True(t, v.Passed, "verifier output %q", v.Output)

	clean := func(c string) string {
		t.Helper()
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: c, Mode: sandbox.ModeExec})
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode, "%s: %q", c, res.Output)
		return string(res.Output)
	}
	assert.Equal(t, string(data), clean("/usr/bin/cat /tests/data.bin"), "the exact bytes")
	assert.Equal(t, "small\n", clean("/usr/bin/cat /tests/small.txt"))
	assert.Equal(t, "755 640 644 0:0\n", clean("echo $(/usr/bin/stat -c %a /tests/check.sh /tests/data.bin /tests/small.txt) $(/usr/bin/stat -c %u:%g /tests/data.bin)"),
		"modes kept, owned by the container's user")
	assert.Equal(t, "regular\n", clean("[ -f /tests/data.bin ] && [ ! -L /tests/data.bin ] && [ ! -e /workspace/stolen ] && echo regular"),
		"the planted symlink was replaced, not followed")
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "cat /dev/null"})
	require.NoError(t, err)
	assert.Equal(t, "corrupted\n", string(res.Output), "the session is still the tampered one")
}
