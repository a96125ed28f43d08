package sandboxtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// bigSize is past every backend's in-band path (session writes, exec
// buffers) and large enough for a pipe or a FIFO to fill many times.
const bigSize = 6<<20 + 13

// bigData is size pseudo-random bytes that start with every byte value.
func bigData(size int) []byte {
	b := make([]byte, size)
	for i := range 256 {
		b[i] = byte(i)
	}
	r := rand.NewChaCha8([32]byte{1, 2, 3})
	_, _ = r.Read(b[256:])
	return b
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// testBigFiles: several MiB of binary data (every byte value) go in with
// WriteFile and WriteFiles and come out with ReadFile unchanged, and the
// sandbox's own tools see the same bytes; what a command writes comes out
// whole too.
func (s *suite) testBigFiles(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	data := bigData(bigSize)
	inside := func(t *testing.T, p string) {
		t.Helper()
		res := runOK(t, sb, "wc -c < "+p+" | tr -d ' '; sha256sum "+p+" | cut -d' ' -f1")
		assert.Equal(t, strings.Join([]string{strconv.Itoa(len(data)), sha(data)}, "\n")+"\n", string(res.Output), "as the sandbox sees %s", p)
		got, err := sb.ReadFile(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, len(data), len(got))
		assert.True(t, sha(got) == sha(data), "ReadFile %s returns the bytes written", p)
	}
	t.Run("WriteFile", func(t *testing.T) {
		require.NoError(t, sb.WriteFile(ctx, "in/one.bin", data, 0o644))
		inside(t, "in/one.bin")
	})
	t.Run("WriteFiles", func(t *testing.T) {
		require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "in/batch.bin", Data: data}, {Path: "in/small.txt", Data: []byte("s")}}))
		inside(t, "in/batch.bin")
	})
	t.Run("made by a command", func(t *testing.T) {
		res := runOK(t, sb, "head -c 7340032 /dev/urandom > out.bin && sha256sum out.bin | cut -d' ' -f1")
		got, err := sb.ReadFile(ctx, "out.bin")
		require.NoError(t, err)
		assert.Len(t, got, 7<<20)
		assert.Equal(t, string(res.Output), sha(got)+"\n")
	})
	t.Run("every byte value made by a command", func(t *testing.T) {
		runOK(t, sb, `i=0; while [ $i -lt 256 ]; do printf "\\$(printf %o $i)"; i=$((i+1)); done > all.bin`)
		got, err := sb.ReadFile(ctx, "all.bin")
		require.NoError(t, err)
		assert.Equal(t, data[:256], got)
	})
}
