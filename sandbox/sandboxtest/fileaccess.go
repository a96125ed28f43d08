package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// fileAccess is one file action tried as uid 1000 and as root.
type fileAccess struct {
	name  string
	write bool
	path  string
	mode  fs.FileMode
	// shell is the same action as a shell command of the user's.
	shell string
	// errno is the user's refusal; op the operation refused.
	errno syscall.Errno
	op    string
}

// fileAccesses use what the suite's images hold (rbx/busybox, Debian):
// /etc/passwd (root's, 0644), /etc (root's, 0755), /root (root's, 0700),
// /etc/shadow (root's, 0640).
var fileAccesses = []fileAccess{
	{"write a root-owned file", true, "/etc/passwd", 0, `echo x >> /etc/passwd`, syscall.EACCES, "write"},
	{"create a file in /root", true, "/root/rbx-new", 0, `echo x > /root/rbx-new`, syscall.EACCES, "write"},
	{"create a file in a root-owned directory", true, "/etc/rbx-new", 0, `echo x > /etc/rbx-new`, syscall.EACCES, "write"},
	{"create a directory in a root-owned directory", true, "/etc/rbx-dir/new", 0, `mkdir -p /etc/rbx-dir`, syscall.EACCES, "mkdir"},
	{"change the mode of a root-owned file", true, "/etc/passwd", 0o600, `chmod 600 /etc/passwd`, syscall.EPERM, "chmod"},
	{"read a file in a root-only directory", false, "/root/secret", 0, `cat /root/secret`, syscall.EACCES, "read"},
	{"read /etc/shadow", false, "/etc/shadow", 0, `cat /etc/shadow`, syscall.EACCES, "read"},
}

// testFileAccess: WriteFile and ReadFile act as the sandbox's user. As uid
// 1000 each action of fileAccesses is refused as a shell command of that
// user is refused — a *sandbox.FileError with the kernel's errno, reading
// "<op> <path>: Permission denied", nothing written — in both modes (and
// in a recyclable sandbox, whose file actions take PID 1's way), for
// small files and large ones (another path); as root each succeeds.
func (s *suite) testFileAccess(t *testing.T) {
	s.need(t, s.feats.User || s.feats.NumericUser, "NumericUser")
	type variant struct {
		name    string
		mode    sandbox.Mode
		recycle bool
	}
	variants := []variant{{"session", sandbox.ModeSession, false}, {"exec", sandbox.ModeExec, false}}
	if s.feats.Recycle {
		spec := s.specFor(sandbox.ModeSession)
		spec.User, spec.Recycle = "1000", true
		if err := sandbox.CanRecycle(s.rt, spec); err != nil {
			t.Logf("no recyclable variant: %v", err) // Kubernetes: the agent needs the container's user to be root
		} else {
			variants = append(variants, variant{"recyclable session", sandbox.ModeSession, true}, variant{"recyclable exec", sandbox.ModeExec, true})
		}
	}
	small, large := []byte("rbx was here\n"), []byte(strings.Repeat("rbx was here\n", 4096)) // 52 KiB: past any shell path
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			ctx := context.Background()
			spec := s.specFor(v.mode)
			spec.User, spec.Recycle = "1000", v.recycle
			user := s.create(t, spec)
			spec = s.specFor(v.mode)
			spec.Recycle = v.recycle
			root := s.create(t, spec)
			passwd := string(runOK(t, user, "cat /etc/passwd").Output)
			for _, a := range fileAccesses {
				t.Run(a.name, func(t *testing.T) {
					res := run(t, user, cmd(a.shell))
					require.NotZero(t, res.ExitCode, "the user's shell is refused: %q", res.Output)
					require.Contains(t, string(res.Output), sandbox.Strerror(a.errno), "the user's shell")
					for _, data := range [][]byte{small, large} {
						var err error
						if a.write {
							err = user.WriteFile(ctx, a.path, data, a.mode)
						} else {
							_, err = user.ReadFile(ctx, a.path)
						}
						checkRefused(t, err, a, len(data))
						if !a.write {
							break
						}
					}
					assert.Equal(t, passwd, string(runOK(t, user, "cat /etc/passwd").Output), "nothing written")
					runOK(t, user, "! [ -e /etc/rbx-new ] && ! [ -e /etc/rbx-dir ]")

					if a.write {
						require.NoError(t, root.WriteFile(ctx, a.path, small, a.mode), "root")
						require.NoError(t, root.WriteFile(ctx, a.path, large, a.mode), "root, large")
						return
					}
					if a.path != "/etc/shadow" {
						require.NoError(t, root.WriteFile(ctx, a.path, small, 0), "root")
					}
					got, err := root.ReadFile(ctx, a.path)
					require.NoError(t, err, "root")
					if a.path != "/etc/shadow" {
						assert.Equal(t, small, got)
					}
				})
			}
			t.Run("the user's own files", func(t *testing.T) {
				for _, data := range [][]byte{small, large} {
					require.NoError(t, user.WriteFile(ctx, "/tmp/mine/deep/f", data, 0o700))
					got, err := user.ReadFile(ctx, "/tmp/mine/deep/f")
					require.NoError(t, err)
					assert.Equal(t, data, got)
				}
				res := runOK(t, user, "stat -c '%u:%g %a' /tmp/mine /tmp/mine/deep /tmp/mine/deep/f")
				assert.Equal(t, "1000:1000 755\n1000:1000 755\n1000:1000 700\n", string(res.Output))
			})
		})
	}
}

// checkRefused asserts err is a's refusal.
func checkRefused(t *testing.T, err error, a fileAccess, size int) {
	t.Helper()
	fe, ok := errors.AsType[*sandbox.FileError](err)
	require.True(t, ok, "%d bytes: a *sandbox.FileError, got %v", size, err)
	assert.Equal(t, a.errno, fe.Errno, "%d bytes: %v", size, err)
	assert.Equal(t, a.op, fe.Op, "%d bytes: %v", size, err)
	assert.True(t, strings.HasPrefix(fe.Path, a.path) || strings.HasPrefix(a.path, fe.Path), "%d bytes: %v names %s", size, err, a.path)
	assert.Equal(t, fmt.Sprintf("%s %s: %s", fe.Op, fe.Path, sandbox.Strerror(a.errno)), err.Error())
	assert.ErrorIs(t, err, fs.ErrPermission)
}
