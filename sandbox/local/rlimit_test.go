package local_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// The local backend applies the fsize and nofile ulimits, its only limits.
func TestUlimits(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := create(t, rt, sandbox.Spec{Mode: mode, Limits: sandbox.Limits{FileSizeBytes: 1 << 20, NoFile: 200}})
			res := exec(t, sb, "ulimit -n; ulimit -Hn")
			assert.Equal(t, "200\n200", strings.TrimSpace(string(res.Output)))
			res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "dd if=/dev/zero of=big bs=64k count=100", Timeout: 10 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, 128+25, res.ExitCode, "SIGXFSZ: %s", res.Output)
			res = exec(t, sb, "wc -c < big")
			assert.Equal(t, "1048576", strings.TrimSpace(string(res.Output)))
		})
	}
}
