package sandboxtest

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testPermissions: the mode given to WriteFile and WriteFiles is the
// file's mode as the sandbox sees it (umask does not narrow it), an
// executable runs, and mode 0 keeps the mode of an existing file.
func (s *suite) testPermissions(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	runOK(t, sb, "umask 077")
	modes := []fs.FileMode{0o600, 0o640, 0o644, 0o664, 0o700, 0o755, 0o777}
	var want, paths []string
	var batch []sandbox.File
	for _, m := range modes {
		one := "perm/one-" + m.String()[1:]
		require.NoError(t, sb.WriteFile(ctx, one, []byte("#!/bin/sh\necho ran\n"), m))
		many := "perm/many-" + m.String()[1:]
		batch = append(batch, sandbox.File{Path: many, Data: []byte("#!/bin/sh\necho ran\n"), Mode: m})
		paths = append(paths, one, many)
		want = append(want, octal(m), octal(m))
	}
	require.NoError(t, sb.WriteFiles(ctx, batch))
	res := runOK(t, sb, "stat -c %a "+strings.Join(paths, " "))
	assert.Equal(t, want, strings.Fields(string(res.Output)), "modes of %v", paths)

	t.Run("executable bit", func(t *testing.T) {
		res := run(t, sb, cmd("./perm/one-rwxr-xr-x && ./perm/many-rwx------"))
		assert.Equal(t, "ran\nran\n", string(res.Output))
		res = run(t, sb, cmd("./perm/one-rw-r--r--"))
		assert.Equal(t, 126, res.ExitCode, "not executable: %q", res.Output)
	})
	t.Run("mode 0 keeps the mode", func(t *testing.T) {
		require.NoError(t, sb.WriteFile(ctx, "perm/one-rwxr-xr-x", []byte("#!/bin/sh\necho edited\n"), 0))
		res := runOK(t, sb, "stat -c %a perm/one-rwxr-xr-x; ./perm/one-rwxr-xr-x")
		assert.Equal(t, "755\nedited\n", string(res.Output))
		require.NoError(t, sb.WriteFile(ctx, "perm/new-default", []byte("x"), 0))
		assert.Equal(t, "644\n", string(runOK(t, sb, "stat -c %a perm/new-default").Output))
	})
}

// octal renders m's permission bits as stat's %a does.
func octal(m fs.FileMode) string { return fmt.Sprintf("%o", m.Perm()) }
