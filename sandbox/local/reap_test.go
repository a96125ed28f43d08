package local_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// TestReapDeadOwner: Reap removes the sandboxes (and their processes) of an
// owner that exited, and leaves this process's own and kept ones alone.
func TestReapDeadOwner(t *testing.T) {
	base := t.TempDir()
	proc := osexec.Command("true")
	require.NoError(t, proc.Run())
	host, err := os.Hostname()
	require.NoError(t, err)
	dead := fmt.Sprintf("%s/%d/1", host, proc.Process.Pid)

	orphans := newRuntime(t, base, local.WithOwner(dead))
	live := newRuntime(t, base)
	gone1 := create(t, orphans, sandbox.Spec{Labels: map[string]string{sandbox.LabelTask: "a"}})
	gone2 := create(t, orphans, sandbox.Spec{Mode: sandbox.ModeExec})
	kept := create(t, orphans, sandbox.Spec{Labels: map[string]string{sandbox.LabelKeep: "true"}})
	mine := create(t, live, sandbox.Spec{})
	bg := exec(t, gone1, "sleep 300 >/dev/null 2>&1 & echo $!")
	pid, err := strconv.Atoi(strings.TrimSpace(string(bg.Output)))
	require.NoError(t, err)
	infos, err := live.List(context.Background(), map[string]string{sandbox.LabelOwner: dead})
	require.NoError(t, err)
	require.Len(t, infos, 3)

	removed, err := sandbox.Reap(context.Background(), live)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{gone1.ID(), gone2.ID()}, ids(removed))
	left, err := live.List(context.Background(), nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{kept.ID(), mine.ID()}, ids(left))
	for _, sb := range []sandbox.Sandbox{gone1, gone2} {
		_, err := os.Stat(filepath.Join(base, sb.ID()[len("local-"):]))
		assert.ErrorIs(t, err, os.ErrNotExist, "directory of %s removed", sb.ID())
	}

	assert.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 5*time.Second, 20*time.Millisecond,
		"the orphan's background job was killed")

	removed, err = sandbox.Reap(context.Background(), live, sandbox.WithAll())
	require.NoError(t, err)
	assert.Equal(t, []string{kept.ID()}, ids(removed), "--all spares this process's own")
}

func ids(infos []sandbox.Info) []string {
	out := make([]string, 0, len(infos))
	for _, in := range infos {
		out = append(out, in.ID)
	}
	return out
}
