package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestSetInode makes a directory's and a file's extended attributes
// exactly a wanted set (extra removed, missing set, changed rewritten) and
// reads them back as a listing does.
func TestSetInode(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644))
	if err := unix.Lsetxattr(filepath.Join(root, "d"), "user.probe", []byte("1"), 0); err != nil {
		t.Skipf("no user xattrs on %s: %v", root, err)
	}
	dirfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(dirfd) })
	tests := []struct {
		name, typ string
		have      map[string]string
		want      []Xattr
	}{
		{"d", TypeDir, map[string]string{"user.x": "secret", "user.a": "old"}, []Xattr{{Name: "user.a", Value: []byte("fresh")}}},
		{"d", TypeDir, map[string]string{"user.x": "secret"}, nil},
		{"f", TypeFile, nil, []Xattr{{Name: "user.b", Value: []byte{0, 1}}, {Name: "user.c", Value: []byte("c")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for n, v := range tt.have {
				require.NoError(t, unix.Lsetxattr(filepath.Join(root, tt.name), n, []byte(v), 0))
			}
			var st unix.Stat_t
			require.NoError(t, unix.Fstatat(dirfd, tt.name, &st, unix.AT_SYMLINK_NOFOLLOW))
			before, err := entryOf(dirfd, tt.name, []byte("/"+tt.name), &st)
			require.NoError(t, err)
			require.NoError(t, setInode(dirfd, tt.name, tt.typ, tt.want, before.Flags, before.NoFlags))
			after, err := entryOf(dirfd, tt.name, []byte("/"+tt.name), &st)
			require.NoError(t, err)
			var want []Xattr
			for _, x := range tt.want {
				if x.Name != "user.probe" {
					want = append(want, x)
				}
			}
			got := []Xattr{}
			for _, x := range after.Xattrs {
				if x.Name != "user.probe" {
					got = append(got, x)
				}
			}
			assert.True(t, XattrsEqual(want, got), "got %v, want %v", got, want)
			assert.Equal(t, before.Flags, after.Flags)
		})
	}
}
