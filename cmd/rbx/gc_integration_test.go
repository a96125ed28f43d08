package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationGCAfterSIGKILL: a replay killed with SIGKILL cannot clean
// up, so its container stays behind; `rbx gc` removes it, and leaves alone a
// container whose owner (this test process) is alive.
func TestIntegrationGCAfterSIGKILL(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	ctx := context.Background()
	id := fmt.Sprintf("gctest-%d", time.Now().UnixNano())
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"),
		[]byte("id: "+id+"\ninstruction: wait\nimage: rbx/busybox:latest\nverify: {command: \"true\"}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.json"), []byte(`{"id": "slow", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "echo started"},
		{"action": "shell", "command": "sleep 60", "timeout": "120s"}]}`), 0o644))
	selector := map[string]string{sandbox.LabelTask: id}
	t.Cleanup(func() { // whatever happens, leave nothing
		list, _ := rt.List(context.Background(), selector)
		for _, in := range list {
			_ = rt.Remove(context.Background(), in.ID)
		}
	})

	live, err := rt.Create(ctx, sandbox.Spec{Image: "rbx/busybox:latest", Mode: sandbox.ModeExec, Labels: selector})
	t.Cleanup(func() {
		if live != nil {
			_ = live.Remove(context.Background())
		}
	})
	require.NoError(t, err)

	cmd := exec.Command(bin, "replay", filepath.Join(dir, "t.json"), "--runtime", "docker")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "0 ") { // step 0 done: step 1 runs
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	list, err := rt.List(ctx, selector)
	require.NoError(t, err)
	require.Len(t, list, 2, "the killed replay left its container behind")
	var orphan string
	for _, in := range list {
		if in.ID != live.ID() {
			orphan = in.ID
		}
	}
	alive, sameHost := sandbox.OwnerAlive(labelOf(t, list, orphan, sandbox.LabelOwner))
	require.True(t, sameHost)
	require.False(t, alive, "the replay's owner is dead")

	// A separate gc process: this test process is a live owner it must spare.
	out, err := exec.Command(bin, "gc", "--runtime", "docker", "--output", "json").Output()
	require.NoError(t, err, "%s", out)
	var res gcResult
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	var removed []string
	for _, e := range res.Removed {
		removed = append(removed, e.ID)
	}
	assert.Contains(t, removed, orphan)
	assert.NotContains(t, removed, live.ID())
	list, err = rt.List(ctx, selector)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, live.ID(), list[0].ID, "the live owner's container is still there")

	// In process, gc finds nothing more to do.
	var stdoutBuf, errOut bytes.Buffer
	code := Run(ctx, []string{"gc", "--runtime", "docker"}, Streams{In: strings.NewReader(""), Out: &stdoutBuf, ErrOut: &errOut})
	require.Equal(t, exitOK, code, errOut.String())
	assert.NotContains(t, stdoutBuf.String(), short(live.ID()))
}

func labelOf(t *testing.T, list []sandbox.Info, id, key string) string {
	t.Helper()
	for _, in := range list {
		if in.ID == id {
			return in.Labels[key]
		}
	}
	t.Fatalf("sandbox %s not listed", id)
	return ""
}
