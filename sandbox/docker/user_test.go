package docker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// A task's user runs every command and owns the workdir and every file rbx
// writes, through the session, the archive API and a batch alike, also
// when the sandbox is opened again by id.
func TestIntegrationUser(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	big := []byte(strings.Repeat("x", 64<<10)) // past the session's size: the archive API
	for _, tc := range []struct {
		name, user, ids string
		mode            sandbox.Mode
		readOnly        bool
	}{
		{"uid", "1000", "1000:1000", sandbox.ModeSession, false},
		{"uid and gid", "1000:2000", "1000:2000", sandbox.ModeExec, false},
		{"name", "nobody", "65534:65534", sandbox.ModeSession, false},
		{"read-only root", "1000", "1000:1000", sandbox.ModeSession, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{User: tc.user, Mode: tc.mode, ReadOnlyRoot: tc.readOnly, Workdir: "/work/space"})
			out, code := execOut(t, sb, `echo "$(id -u):$(id -g)"`)
			require.Zero(t, code, out)
			assert.Equal(t, tc.ids, out)

			require.NoError(t, sb.WriteFile(ctx, "small/s.txt", []byte("s"), 0))
			require.NoError(t, sb.WriteFile(ctx, "large/l.txt", big, 0))
			require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "deep/dir/f.txt", Data: []byte("f")}}))
			opened, err := rt.Open(ctx, sb.ID())
			require.NoError(t, err)
			require.NoError(t, opened.WriteFile(ctx, "reopened/l.txt", big, 0))

			paths := []string{".", "small", "small/s.txt", "large", "large/l.txt", "deep", "deep/dir", "deep/dir/f.txt", "reopened/l.txt", "own"}
			out, code = execOut(t, sb, "touch own deep/dir/new && stat -c %u:%g "+strings.Join(paths, " "))
			require.Zero(t, code, out)
			for i, got := range strings.Fields(out) {
				assert.Equal(t, tc.ids, got, paths[i])
			}
			assert.Len(t, strings.Fields(out), len(paths))
		})
	}
}
