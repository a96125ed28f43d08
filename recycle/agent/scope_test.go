package agent

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScopeWire(t *testing.T) {
	dirs := [][]byte{[]byte("/usr"), []byte("/usr/lib"), []byte("/a b\n")}
	var buf bytes.Buffer
	require.NoError(t, WriteScope(&buf, dirs))
	s, err := ReadScope(&buf)
	require.NoError(t, err)
	assert.Equal(t, 4, s.Len(), "the three and /")
	for _, d := range dirs {
		assert.True(t, s.Walked(d), "%q", d)
	}
	assert.False(t, s.Walked([]byte("/etc")))
	assert.True(t, s.Lists([]byte("/etc")), "an entry of a walked directory is listed, an unwalked directory too")
	assert.False(t, s.Lists([]byte("/etc/passwd")), "not the tree of an unwalked directory")
}

func TestReadScopeRejects(t *testing.T) {
	tests := []struct {
		name string
		dirs [][]byte
	}{
		{"relative", [][]byte{[]byte("usr")}},
		{"not clean", [][]byte{[]byte("/usr/../etc")}},
		{"empty", [][]byte{{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteScope(&buf, tc.dirs))
			_, err := ReadScope(&buf)
			assert.Error(t, err)
		})
	}
	_, err := ReadScope(bytes.NewReader([]byte("rbx-scope-1\n\x05\x00\x00\x00\x00\x00\x00\x00")))
	assert.Error(t, err, "truncated")
}

func FuzzReadScope(f *testing.F) {
	var buf bytes.Buffer
	_ = WriteScope(&buf, [][]byte{[]byte("/usr"), []byte("/tmp/x")})
	f.Add(buf.Bytes())
	f.Add([]byte("rbx-scope-1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadScope(bytes.NewReader(data))
		if err != nil {
			return
		}
		assert.True(t, s.Walked([]byte("/")))
	})
}
