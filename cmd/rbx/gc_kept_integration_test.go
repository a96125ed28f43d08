package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationGCKept: a sandbox kept by `rbx replay --keep` (a separate
// process, so its owner is dead once it exits) survives plain `rbx gc` and
// is removed by `rbx gc --kept`.
func TestIntegrationGCKept(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	ctx := context.Background()
	id := fmt.Sprintf("gckept-%d", time.Now().UnixNano())
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"),
		[]byte("id: "+id+"\ninstruction: nothing\nimage: rbx/busybox:latest\nverify: {command: \"true\"}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.json"), []byte(`{"id": "kept", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "echo kept", "observation": {"output": "kept\n", "exit_code": 0}}]}`), 0o644))
	selector := map[string]string{sandbox.LabelTask: id}
	t.Cleanup(func() { // whatever happens, leave nothing
		list, _ := rt.List(context.Background(), selector)
		for _, in := range list {
			_ = rt.Remove(context.Background(), in.ID)
		}
	})
	out, err := exec.Command(bin, "replay", filepath.Join(dir, "t.json"), "--keep", "--runtime", "docker", "--output", "json").Output()
	require.NoError(t, err, "%s", out)
	var rep replayResult
	require.NoError(t, json.Unmarshal(out, &rep), "%s", out)
	require.True(t, rep.Kept)

	gc := func(args ...string) []string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"gc", "--runtime", "docker", "--output", "json"}, args...)...).Output()
		require.NoError(t, err, "%s", out)
		var res gcResult
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		var ids []string
		for _, e := range res.Removed {
			ids = append(ids, e.ID)
		}
		return ids
	}
	// The selections, checked by dry runs before anything is removed.
	assert.NotContains(t, gc("--dry-run"), rep.Sandbox, "plain gc spares a kept sandbox")
	assert.Contains(t, gc("--dry-run", "--kept"), rep.Sandbox)
	assert.NotContains(t, gc(), rep.Sandbox)
	list, err := rt.List(ctx, selector)
	require.NoError(t, err)
	require.Len(t, list, 1, "plain gc left the kept sandbox")
	assert.Equal(t, "true", list[0].Labels[sandbox.LabelKeep])

	assert.Contains(t, gc("--kept"), rep.Sandbox)
	list, err = rt.List(ctx, selector)
	require.NoError(t, err)
	assert.Empty(t, list, "gc --kept removed it")
}
