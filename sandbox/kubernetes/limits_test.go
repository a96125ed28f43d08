package kubernetes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationLimits: what the pod spec and the exec wrapper apply is
// what a step sees, in both modes: the ulimits, a numeric user, no
// capabilities beyond the default set, no privilege escalation, a
// read-only root with a writable workdir and /tmp.
func TestIntegrationLimits(t *testing.T) {
	rt := k8stest.Runtime(t)
	ctx := context.Background()
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			spec := sandbox.Spec{Image: busyboxImage, Mode: mode, User: "1000", ReadOnlyRoot: true,
				Limits: sandbox.Limits{NoFile: 1000, FileSizeBytes: 1 << 20},
				Labels: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}}
			sb, err := rt.Create(ctx, spec)
			t.Cleanup(func() {
				if sb != nil {
					assert.NoError(t, sb.Remove(context.Background()))
				}
			})
			require.NoError(t, err)
			run := func(cmd string) sandbox.ExecResult {
				t.Helper()
				res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: cmd})
				require.NoError(t, err, cmd)
				return res
			}
			assert.Equal(t, "1000 1000\n", string(run("echo $(id -u) $(id -g)").Output))
			assert.Equal(t, "1000\n", string(run("ulimit -n").Output))
			res := run("dd if=/dev/zero of=big bs=1024 count=2048 2>/dev/null; echo $?; wc -c < big")
			lines := strings.Fields(string(res.Output))
			require.Len(t, lines, 2, "%q", res.Output)
			assert.NotEqual(t, "0", lines[0], "dd past the file size limit fails")
			assert.Equal(t, "1048576", lines[1], "the file stops at the limit")
			assert.Equal(t, "0000000000000000\n", string(run("grep CapEff /proc/self/status | cut -f2").Output), "a non-root user has no effective capabilities")
			assert.Equal(t, "1\n", string(run("grep NoNewPrivs /proc/self/status | cut -f2").Output))
			assert.NotEqual(t, 0, run("touch /rootfile").ExitCode, "the root is read-only")
			assert.Equal(t, 0, run("touch /tmp/x ./y").ExitCode, "/tmp and the workdir are writable")
			require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "staged.txt", Data: []byte("s")}}))
			assert.Equal(t, "1000\n", string(run("stat -c %u staged.txt").Output), "staged files are the user's")
		})
	}
}
