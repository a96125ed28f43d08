package session_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// hostFileExec runs the file scripts with a shell of the host (argv), as
// uid:gid when uid is not 0 — what a sandbox's exec does as its user.
func hostFileExec(argv []string, uid uint32) session.FileExec {
	return func(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error) {
		cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "-c", script)...)
		if uid != 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
		}
		if data != nil {
			cmd.Stdin = bytes.NewReader(data)
		}
		var buf bytes.Buffer
		if out == nil {
			out = &buf
		}
		cmd.Stdout, cmd.Stderr = out, out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return buf.Bytes(), ee.ExitCode(), nil
		}
		return buf.Bytes(), 0, err
	}
}

// fileTree makes a directory tree uid 1000 can traverse: a root-owned file
// (0644), a world-writable root-owned file (0666), a root-only directory
// (0700) holding a file, a root-only readable file (0640), a directory
// of uid 1000's and a plain file where a directory is expected.
func fileTree(t *testing.T) string {
	t.Helper()
	// Not t.TempDir: its parent is 0700, which uid 1000 cannot search.
	dir, err := os.MkdirTemp("", "rbx-files-")
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	for p := filepath.Dir(dir); p != "/"; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.NotZero(t, st.Mode().Perm()&0o001, "%s must be searchable by uid 1000", p)
	}
	write := func(name string, mode fs.FileMode) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("orig\n"), mode))
		require.NoError(t, os.Chmod(filepath.Join(dir, name), mode))
	}
	write("rootfile", 0o644)
	write("shared", 0o666)
	write("shadow", 0o640)
	write("plain", 0o644)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "root"), 0o700))
	write("root/secret", 0o644)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "mine"), 0o755))
	require.NoError(t, os.Chown(filepath.Join(dir, "mine"), 1000, 1000))
	return dir
}

// TestFileScriptsAsUser runs the write and read scripts with dash,
// busybox sh and bash as uid 1000 and as root: every refusal is the
// kernel's (a *sandbox.FileError with its errno, nothing written), the
// same operation as a shell command of that user is refused too, and
// root succeeds where the user is refused.
func TestFileScriptsAsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the scripts as uid 1000")
	}
	shells := map[string][]string{"dash": {"dash"}, "busybox": {"busybox", "sh"}, "bash": {"bash"}}
	type op struct {
		name   string
		write  bool
		path   string // relative to the tree
		mode   fs.FileMode
		shell  string // the same action as a shell command ($f: the path)
		errno  syscall.Errno
		rootOK bool
	}
	ops := []op{
		{name: "write a root-owned file", write: true, path: "rootfile", shell: `echo x > "$f"`, errno: syscall.EACCES, rootOK: true},
		{name: "write in a root-only directory", write: true, path: "root/secret", shell: `echo x > "$f"`, errno: syscall.EACCES, rootOK: true},
		{name: "create in a root-only directory", write: true, path: "root/new", shell: `echo x > "$f"`, errno: syscall.EACCES, rootOK: true},
		{name: "parent directory in a root-only directory", write: true, path: "root/sub/new", shell: `mkdir -p "$(dirname "$f")"`, errno: syscall.EACCES, rootOK: true},
		{name: "chmod of another's file", write: true, path: "shared", mode: 0o755, shell: `chmod 755 "$f"`, errno: syscall.EPERM, rootOK: true},
		{name: "read a root-only file", path: "shadow", shell: `cat "$f" >/dev/null`, errno: syscall.EACCES},
		{name: "read in a root-only directory", path: "root/secret", shell: `cat "$f" >/dev/null`, errno: syscall.EACCES, rootOK: true},
		{name: "parent is a file", write: true, path: "plain/x", shell: `echo x > "$f"`, errno: syscall.ENOTDIR},
		{name: "read a directory", path: "mine", shell: `cat "$f" >/dev/null`, errno: syscall.EISDIR},
		{name: "read a missing file", path: "mine/nothing", shell: `cat "$f" >/dev/null`, errno: syscall.ENOENT},
	}
	for name, argv := range shells {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Skipf("%s not installed", argv[0])
			}
			for _, tc := range ops {
				t.Run(tc.name, func(t *testing.T) {
					for _, uid := range []uint32{1000, 0} {
						dir := fileTree(t)
						p := filepath.Join(dir, tc.path)
						f := session.Files{ID: "sb", Workdir: dir, Exec: hostFileExec(argv, uid)}
						before, _ := os.ReadFile(p)
						var err error
						if tc.write {
							err = f.WriteFile(context.Background(), tc.path, []byte("new\n"), tc.mode)
						} else {
							_, err = f.ReadFile(context.Background(), tc.path)
						}
						_, code, serr := hostFileExec(argv, uid)(context.Background(), "f="+session.Quote(p)+"; "+tc.shell, nil, nil)
						require.NoError(t, serr)
						if uid == 0 && tc.rootOK {
							require.NoError(t, err, "root")
							continue
						}
						if uid == 0 {
							continue
						}
						assert.NotZero(t, code, "the user's shell is refused too")
						fe, ok := errors.AsType[*sandbox.FileError](err)
						require.True(t, ok, "a FileError: %v", err)
						assert.Equal(t, tc.errno, fe.Errno, "%v", err)
						assert.Contains(t, err.Error(), sandbox.Strerror(tc.errno))
						assert.Contains(t, err.Error(), dir)
						after, _ := os.ReadFile(p)
						assert.Equal(t, before, after, "nothing written")
						if tc.errno == syscall.ENOENT {
							assert.ErrorIs(t, err, sandbox.ErrNotFound)
						}
						if tc.errno == syscall.EACCES || tc.errno == syscall.EPERM {
							assert.ErrorIs(t, err, fs.ErrPermission)
						}
					}
				})
			}
			t.Run("the user's own files", func(t *testing.T) {
				dir := fileTree(t)
				f := session.Files{ID: "sb", Workdir: dir, Exec: hostFileExec(argv, 1000)}
				ctx := context.Background()
				data := []byte("bin\x00ary\n\xff")
				require.NoError(t, f.WriteFile(ctx, "mine/deep/er/f", data, 0o750))
				got, err := f.ReadFile(ctx, "mine/deep/er/f")
				require.NoError(t, err)
				assert.Equal(t, data, got)
				st, err := os.Stat(filepath.Join(dir, "mine/deep/er/f"))
				require.NoError(t, err)
				assert.Equal(t, fs.FileMode(0o750), st.Mode().Perm())
				assert.Equal(t, uint32(1000), st.Sys().(*syscall.Stat_t).Uid)
				require.NoError(t, f.WriteFile(ctx, "shared", []byte("shared edit"), 0), "a world-writable file of root's")
				got, err = os.ReadFile(filepath.Join(dir, "shared"))
				require.NoError(t, err)
				assert.Equal(t, "shared edit", string(got))
			})
		})
	}
}
