package sandboxtest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func (s *suite) testOutputCap(t *testing.T) {
	const limit = 100
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			spec := s.specFor(mode)
			spec.OutputCap = limit
			sb := s.create(t, spec)
			res := runOK(t, sb, "yes abcdefghi | head -c 100000")
			assert.True(t, res.Truncated, "Truncated")
			assert.Len(t, res.Output, limit)
			assert.EqualValues(t, 100000, res.OutputBytes)
			assert.True(t, strings.HasPrefix(string(res.Output), "abcdefghi\nabcdefghi\n"), "%q", res.Output)

			small := runOK(t, sb, "echo small")
			assert.False(t, small.Truncated)
			assert.EqualValues(t, len("small\n"), small.OutputBytes)
		})
	}
}

func (s *suite) testLargeOutput(t *testing.T) {
	const size = 1 << 20
	want := bytes.Repeat([]byte("aaaaaaa\n"), size/8)
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			spec := s.specFor(mode)
			spec.OutputCap = 2 * size
			sb := s.create(t, spec)
			res := runOK(t, sb, "yes aaaaaaa | head -c 1048576")
			assert.False(t, res.Truncated, "Truncated")
			assert.EqualValues(t, size, res.OutputBytes)
			assert.Len(t, res.Output, size)
			assert.True(t, bytes.Equal(want, res.Output), "1 MiB output differs from the expected lines")
		})
	}
}
