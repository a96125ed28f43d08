package sandboxtest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testReadOnlyRoot: with Spec.ReadOnlyRoot the workdir and /tmp are the
// only writable paths, each bounded by Limits.DiskBytes (ENOSPC past it);
// file actions work there and fail elsewhere.
func (s *suite) testReadOnlyRoot(t *testing.T) {
	s.need(t, s.feats.ReadOnlyRoot, "ReadOnlyRoot")
	ctx := context.Background()
	spec := s.specFor(sandbox.ModeSession)
	spec.ReadOnlyRoot, spec.Limits.DiskBytes = true, 16<<20
	sb := s.create(t, spec)
	for _, tc := range []struct {
		cmd, want string
		fails     bool
	}{
		{"touch /etc/x", "Read-only file system", true},
		{"touch /x", "Read-only file system", true},
		{"touch " + s.workdir() + "/x /tmp/x && echo ok", "ok", false},
		{"dd if=/dev/zero of=big bs=1M count=100", "No space left on device", true},
		{"dd if=/dev/zero of=/tmp/big bs=1M count=100", "No space left on device", true},
		{"df -k . /tmp | awk 'NR>1 {print $2}' | sort -u", "16384", false},
		{"rm big /tmp/big && echo removed", "removed", false},
	} {
		res := run(t, sb, cmd(tc.cmd))
		assert.Contains(t, string(res.Output), tc.want, tc.cmd)
		assert.Equal(t, tc.fails, res.ExitCode != 0, "%s: exit %d", tc.cmd, res.ExitCode)
	}
	require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "a/b.txt", Data: []byte("b")}, {Path: "/tmp/c.txt", Data: []byte("c")}}))
	data := bigData(1 << 20)
	require.NoError(t, sb.WriteFile(ctx, "d/big.bin", data, 0o600))
	got, err := sb.ReadFile(ctx, "d/big.bin")
	require.NoError(t, err)
	assert.True(t, sha(got) == sha(data), "big file read back")
	assert.Equal(t, "bc", string(runOK(t, sb, "cat a/b.txt /tmp/c.txt").Output))
	assert.Error(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "/etc/x", Data: []byte("x")}}), "WriteFiles outside the writable paths")
	assert.Error(t, sb.WriteFile(ctx, "/etc/y", []byte("y"), 0), "WriteFile outside the writable paths")
	assert.Equal(t, "none\n", string(runOK(t, sb, "ls /etc/x /etc/y 2>/dev/null || echo none").Output))
}

// testReadOnlyRootSeeded: a writable path of a read-only root starts with
// what the image holds there, with the image's modes, as a writable root
// shows it.
func (s *suite) testReadOnlyRootSeeded(t *testing.T) {
	s.need(t, s.feats.ReadOnlyRoot, "ReadOnlyRoot")
	spec := s.specFor(sandbox.ModeExec)
	spec.ReadOnlyRoot, spec.Workdir = true, "/etc"
	sb := s.create(t, spec)
	res := runOK(t, sb, "grep -c '^nobody:' passwd; stat -c %a passwd; touch new && echo writable; touch /bin/x 2>/dev/null || echo read-only")
	assert.Equal(t, "1\n644\nwritable\nread-only\n", string(res.Output))
	assert.True(t, strings.HasPrefix(string(runOK(t, sb, "df -k /etc | awk 'NR>1 {print $1}'").Output), "tmpfs"), "a bounded tmpfs")
}
