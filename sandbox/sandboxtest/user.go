package sandboxtest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testUser: Spec.User runs every command as that user ("uid" gets the
// group of the same number), who owns the workdir (created for it) and
// every file rbx writes, in both modes and with a read-only root; a user
// the image does not know by name is refused at create.
func (s *suite) testUser(t *testing.T) {
	s.need(t, s.feats.User, "User")
	ctx := context.Background()
	for _, tc := range []struct {
		name, user, ids string
		mode            sandbox.Mode
		readOnly        bool
	}{
		{"uid", "1000", "1000:1000", sandbox.ModeSession, false},
		{"uid and gid", "1000:2000", "1000:2000", sandbox.ModeExec, false},
		{"name", "nobody", "65534:65534", sandbox.ModeSession, false},
		{"read-only root", "1000", "1000:1000", sandbox.ModeExec, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.readOnly {
				s.need(t, s.feats.ReadOnlyRoot, "ReadOnlyRoot")
			}
			spec := s.specFor(tc.mode)
			spec.User, spec.ReadOnlyRoot, spec.Workdir = tc.user, tc.readOnly, "/work/space"
			sb := s.create(t, spec)
			res := runOK(t, sb, `echo "$(id -u):$(id -g)"`)
			assert.Equal(t, tc.ids+"\n", string(res.Output))

			require.NoError(t, sb.WriteFile(ctx, "one/f.txt", []byte("f"), 0))
			require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "deep/dir/g.txt", Data: []byte("g")}}))
			paths := []string{".", "one", "one/f.txt", "deep", "deep/dir", "deep/dir/g.txt", "own"}
			res = runOK(t, sb, "touch own && stat -c %u:%g "+strings.Join(paths, " "))
			got := strings.Fields(string(res.Output))
			require.Len(t, got, len(paths))
			for i, p := range paths {
				assert.Equal(t, tc.ids, got[i], p)
			}
			res = run(t, sb, cmd("touch /etc/rbx-not-mine"))
			assert.NotZero(t, res.ExitCode, "a user other than root cannot write /etc")
		})
	}
	t.Run("unknown", func(t *testing.T) {
		for _, user := range []string{"nosuchuser", "nobody:nosuchgroup"} {
			spec := s.specFor(sandbox.ModeExec)
			spec.User = user
			sb, err := s.rt.Create(ctx, spec)
			if sb != nil {
				t.Cleanup(func() { _ = sb.Remove(context.Background()) })
			}
			require.ErrorIs(t, err, sandbox.ErrInvalidSpec, user)
			assert.Contains(t, err.Error(), "nosuch")
			infos, err := s.rt.List(ctx, map[string]string{LabelConformance: spec.Labels[LabelConformance]})
			require.NoError(t, err)
			assert.Empty(t, infos, "nothing left of the refused create")
		}
	})
}
