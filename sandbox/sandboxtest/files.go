package sandboxtest

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func (s *suite) testFiles(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	binary := make([]byte, 1024)
	for i := range binary {
		binary[i] = byte(i)
	}
	tests := []struct {
		name  string
		write string // path given to WriteFile
		read  string // path given to ReadFile; the same when empty
		cat   string // path for `cat` in a shell step; skipped when empty
		data  []byte
	}{
		{"relative", "notes.txt", "", "notes.txt", []byte("hello\n")},
		{"nested new parents", "deep/er/and/deeper/f.txt", "", "deep/er/and/deeper/f.txt", []byte("nested")},
		{"absolute in workdir", path.Join(s.workdir(), "abs.txt"), "abs.txt", "abs.txt", []byte("abs")},
		{"relative read absolute", "rel.txt", path.Join(s.workdir(), "rel.txt"), "", []byte("rel")},
		// /tmp: gVisor mounts its own tmpfs over an empty /tmp that is
		// not a mount, where a file written from the host went unseen.
		{"absolute outside workdir", "/tmp/rbx-suite/out.txt", "", s.ownRoot("/tmp/rbx-suite/out.txt"), []byte("outside")},
		{"binary", "bin.dat", "", "", binary},
		{"empty", "empty.txt", "", "empty.txt", []byte{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, sb.WriteFile(ctx, tc.write, tc.data, 0o644))
			read := tc.read
			if read == "" {
				read = tc.write
			}
			got, err := sb.ReadFile(ctx, read)
			require.NoError(t, err)
			assert.Equal(t, tc.data, got)
			if tc.cat != "" {
				res := runOK(t, sb, "cat "+tc.cat)
				assert.Equal(t, string(tc.data), string(res.Output))
			}
		})
	}
	t.Run("binary size seen by shell", func(t *testing.T) {
		res := runOK(t, sb, "wc -c < bin.dat")
		assert.Equal(t, "1024", strings.TrimSpace(string(res.Output)))
	})
	t.Run("overwrite with shorter", func(t *testing.T) {
		require.NoError(t, sb.WriteFile(ctx, "over.txt", []byte("a long first version"), 0o644))
		require.NoError(t, sb.WriteFile(ctx, "over.txt", []byte("short"), 0o644))
		got, err := sb.ReadFile(ctx, "over.txt")
		require.NoError(t, err)
		assert.Equal(t, "short", string(got))
	})
	t.Run("executable", func(t *testing.T) {
		require.NoError(t, sb.WriteFile(ctx, "bin/hello.sh", []byte("#!/bin/sh\necho \"hello $1\"\n"), 0o755))
		res := runOK(t, sb, "[ -x bin/hello.sh ] && ./bin/hello.sh world")
		assert.Equal(t, "hello world\n", string(res.Output))
	})
	t.Run("a batch in /tmp", func(t *testing.T) {
		if s.ownRoot("/tmp") == "" {
			t.Skip("the backend's absolute paths are not its processes' (no own root filesystem)")
		}
		require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "/tmp/rbx-batch/a.txt", Data: []byte("batch")}}))
		res := runOK(t, sb, "cat /tmp/rbx-batch/a.txt")
		assert.Equal(t, "batch", string(res.Output), "the session sees what rbx wrote in /tmp")
	})
	t.Run("written by shell", func(t *testing.T) {
		runOK(t, sb, "mkdir -p made && printf 'from shell' > made/by.txt")
		got, err := sb.ReadFile(ctx, "made/by.txt")
		require.NoError(t, err)
		assert.Equal(t, "from shell", string(got))
		if s.ownRoot("/tmp") != "" {
			runOK(t, sb, "printf 'in tmp' > /tmp/rbx-by-shell.txt")
			got, err = sb.ReadFile(ctx, "/tmp/rbx-by-shell.txt")
			require.NoError(t, err, "a file a step left in /tmp is read back")
			assert.Equal(t, "in tmp", string(got))
		}
	})
}

func (s *suite) testReadMissing(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeExec))
	for _, p := range []string{"missing.txt", "no/such/dir/file", path.Join(s.workdir(), "missing-abs.txt")} {
		_, err := sb.ReadFile(ctx, p)
		assert.ErrorIs(t, err, sandbox.ErrNotFound, p)
	}
}

// ownRoot is p when the backend's sandboxes have a root filesystem of
// their own (ProcessIsolation: a container), where the file API's
// absolute paths are its processes'; "" otherwise (local: the shell's /tmp
// is the host's).
func (s *suite) ownRoot(p string) string {
	if s.feats.ProcessIsolation {
		return p
	}
	return ""
}
