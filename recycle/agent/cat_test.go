package agent

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCat: files are served with their stat and whole content, without
// following a symlink anywhere on the path; a refused request is answered
// and the stream goes on.
func TestCat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, []byte("hello"), 0o640))
	require.NoError(t, os.Symlink(file, filepath.Join(dir, "link")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "dl")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "g"), []byte("inner"), 0o600))

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveCat(inR, outW); outW.Close() }()
	c := CatClient{W: inW, R: outR}
	for _, tc := range []struct {
		path, want, err string
	}{
		{file, "hello", ""},
		{filepath.Join(dir, "link"), "", "not a regular file"},
		{filepath.Join(dir, "dl", "g"), "", "open parent"},
		{filepath.Join(dir, "missing"), "", "no such file"},
		{filepath.Join(dir, "d"), "", "not a regular file"},
		{"relative", "", "not absolute"},
		{filepath.Join(dir, "d", "g"), "inner", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			h, r, err := c.Open([]byte(tc.path))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			data, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(data))
			assert.Equal(t, int64(len(tc.want)), h.Size)
			assert.Equal(t, uint32(os.Getuid()), h.UID)
		})
	}
	require.NoError(t, inW.Close())
	require.NoError(t, <-done)
}

// FuzzCatClient: whatever a cat stream says, the client answers a header
// and a reader bounded by its size, or an error — never a panic nor an
// allocation the stream sizes.
func FuzzCatClient(f *testing.F) {
	f.Add([]byte{0, 0xa4, 0x81, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'})
	f.Add([]byte{1, 3, 0, 0, 0, 'b', 'a', 'd'})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := CatClient{W: io.Discard, R: bytes.NewReader(data)}
		h, r, err := c.Open([]byte("/f"))
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, h.Size, int64(0))
		n, _ := io.Copy(io.Discard, r)
		require.LessOrEqual(t, n, h.Size)
	})
}
