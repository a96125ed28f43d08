package verifier_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/verifier"
)

// TestIntegrationBoundedTask runs tasks with the isolation options from
// task.yaml to verdict: the agent's files and the verifier's are staged
// for the task's user, a policy writing without bound stops at the task's
// bound, and the verifier (as that user) sees the state it left.
func TestIntegrationBoundedTask(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	for _, tc := range []struct {
		name, yaml string
		write      string // the unbounded write and how it must end
		wantUID    string
	}{
		{"file size", `user: "1000"
limits: {file_size: 4MiB}
verify: {command: 'sh /tests/check.sh 4194304', files: {tests/: /tests/}}`,
			`dd if=/dev/zero of=big bs=1M count=1000; echo "rc=$?"`, "1000"},
		{"read-only root", `user: nobody
read_only_root: true
limits: {disk: 8MiB}
verify: {command: 'sh /tmp/tests/check.sh', files: {tests/: /tmp/tests/}}`,
			`dd if=/dev/zero of=big bs=1M count=1000 2>&1 | grep -q "No space left" && echo rc=ENOSPC`, "65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi\n"), 0o644))
			// The verifier: runs as the task's user, reads the agent's
			// file, and finds the unbounded write cut at the bound.
			check := `set -e; test "$(id -u)" = ` + tc.wantUID + `; test "$(cat hello.txt)" = hi
test -w . ; size=$(wc -c < big); echo "big=$size"; [ -z "$1" ] || test "$size" = "$1"`
			require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "check.sh"), []byte(check), 0o644))
			doc := "id: bounded\nimage: rbx/busybox:latest\nfiles: {hello.txt: hello.txt}\n" + tc.yaml + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte(doc), 0o644))
			tk, err := task.Load(filepath.Join(dir, "task.yaml"))
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			spec := provision.Spec(tk)
			spec.Labels["rbx.test"] = sandbox.LabelValue(t.Name())
			sb, err := rt.Create(ctx, spec)
			t.Cleanup(func() {
				if sb != nil {
					assert.NoError(t, sb.Remove(context.Background()))
				}
			})
			require.NoError(t, err)
			require.NoError(t, provision.Prepare(ctx, sb, tk))

			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: tc.write})
			require.NoError(t, err)
			assert.Contains(t, string(res.Output), map[bool]string{true: "rc=ENOSPC", false: "rc=153"}[tk.ReadOnlyRoot])

			v, err := verifier.Run(ctx, sb, tk)
			require.NoError(t, err)
			assert.True(t, v.Passed, "verifier: exit %d: %s", v.ExitCode, v.Output)
			assert.True(t, strings.HasPrefix(v.Output, "big="), v.Output)
		})
	}
}
