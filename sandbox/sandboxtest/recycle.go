package sandboxtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testRecycle: a sandbox created with Spec.Recycle is a Recycler; after a
// step wrote a file, changed directory and exported a variable, Recycle
// leaves the workdir as fresh and a new session that starts in it.
func (s *suite) testRecycle(t *testing.T) {
	s.need(t, s.feats.Recycle, "Recycle")
	spec := s.specFor(sandbox.ModeSession)
	spec.Recycle = true
	sb := s.create(t, spec)
	rec, ok := sb.(sandbox.Recycler)
	require.True(t, ok, "a sandbox created with Spec.Recycle implements sandbox.Recycler")
	// Every column of ls -la but the link count: the kernel's overlayfs
	// counts a directory present in both layers (merged, as a directory is
	// once anything in it was written) as 1 link, whatever it holds, so a
	// workdir an episode wrote in reads 1 where the image's read 2 — the
	// containerd backend's overlayfs; a fresh sandbox whose task files
	// were written there reads 1 as well. The proof compares type, mode,
	// owner, size and content (docs/recycling.md).
	list := "pwd; ls -la " + s.workdir() + " | awk '{$2=\"\"; print}'; echo ${RBX_RECYCLED:-unset}"
	fresh := run(t, sb, cmd(list))
	res := run(t, sb, cmd("echo x > recycled.txt && mkdir -p .hidden/d && export RBX_RECYCLED=1 && cd /tmp && echo ok"))
	require.Contains(t, string(res.Output), "ok")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := rec.Recycle(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, rep.Removed, 2, "recycled.txt and .hidden")
	assert.Equal(t, string(fresh.Output), string(run(t, sb, cmd(list)).Output))
	res = run(t, sb, cmd("cat recycled.txt"))
	assert.NotEqual(t, 0, res.ExitCode, "recycled.txt is gone")
}
