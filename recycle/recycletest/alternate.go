package recycletest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// taskA is the first task of a class alternating with taskB: it leaves
// inode metadata on image directories, files, mount roots and its own
// file (and the engine's /etc/hosts where the backend bind-mounts one).
// taskB lists that metadata on the same paths through the helper, as
// getfattr and lsattr would.
const (
	taskA = `{x} set /etc user.a secret-$RANDOM && {x} set /etc/passwd user.a s && {x} acl /root default && ` +
		`{x} acl /etc/group access && echo a > f && {x} set f user.f v && { [ ! -e /etc/hosts ] || { {x} chattr /etc/hosts 40 && ` +
		`{x} set /etc/hosts user.h v; }; } && {x} chattr /dev/shm 40 && {x} set /dev/shm user.s v && ln /etc/passwd /tmp/pw && echo ok`
	taskB = `{x} get /etc /etc/passwd /root /etc/group /etc/hosts /dev/shm f /tmp/pw`
)

// RunAlternating alternates two tasks of one class in sb, recycled after
// each: task A sets extended attributes, ACLs, flags and a hard link;
// task B, in the next (fresh) shell, must list the same paths exactly as
// in the fresh sandbox. It returns the recycles done (2 per pair, plus
// one after the fresh listing).
func RunAlternating(t *testing.T, sb sandbox.Sandbox, helpers Helpers, pairs int) int {
	t.Helper()
	a, b := strings.ReplaceAll(taskA, "{x}", XattrsPath), strings.ReplaceAll(taskB, "{x}", XattrsPath)
	fresh := runTask(t, sb, b, helpers)
	t.Logf("task B in the fresh sandbox:\n%s", fresh)
	recycles := recycleOnce(t, sb)
	for i := 0; i < pairs; i++ {
		require.Contains(t, runTask(t, sb, a, helpers), "ok", "task A, pair %d", i)
		recycles += recycleOnce(t, sb)
		require.Equal(t, fresh, runTask(t, sb, b, helpers), "task B after task A, pair %d: what a fresh sandbox shows", i)
		recycles += recycleOnce(t, sb)
	}
	return recycles
}

func runTask(t *testing.T, sb sandbox.Sandbox, cmd string, helpers Helpers) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	copyHelpers(ctx, t, sb, cmd, helpers)
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: cmd})
	require.NoError(t, err)
	return fmt.Sprintf("exit %d\n%s", res.ExitCode, res.Output)
}

func recycleOnce(t *testing.T, sb sandbox.Sandbox) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := sb.(sandbox.Recycler).Recycle(ctx)
	require.NoError(t, err)
	return 1
}
