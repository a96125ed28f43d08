package docker

import (
	"archive/tar"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestTarFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owner    *fileOwner
		uid, gid int
	}{
		{"root", nil, 0, 0},
		{"user", &fileOwner{uid: 1000, gid: 1001}, 1000, 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tarFile([]string{"a", "a/b"}, "a/b/f", []byte("data"), 0o600, tc.owner)
			require.NoError(t, err)
			tr := tar.NewReader(r)
			var names []string
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				names = append(names, h.Name)
				assert.Equal(t, []int{tc.uid, tc.gid}, []int{h.Uid, h.Gid}, h.Name)
				if h.Name == "a/b/f" {
					assert.EqualValues(t, 0o600, h.Mode)
					b, err := io.ReadAll(tr)
					require.NoError(t, err)
					assert.Equal(t, "data", string(b))
				}
			}
			assert.Equal(t, []string{"a/", "a/b/", "a/b/f"}, names)
		})
	}
}

func TestCapWriter(t *testing.T) {
	c := &sandbox.CapWriter{Limit: 4}
	_, _ = c.Write([]byte("abc"))
	_, _ = c.Write([]byte("def"))
	c.Freeze()
	_, _ = c.Write([]byte("ghi"))
	res := c.Result(sandbox.ExecResult{})
	assert.Equal(t, "abcd", string(res.Output))
	assert.EqualValues(t, 6, res.OutputBytes)
	assert.True(t, res.Truncated)
}
