package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

func TestGCUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gc", "--all", "--older-than", "1h"}, "--all and --older-than exclude each other"},
		{[]string{"gc", "--older-than", "soon"}, "invalid argument"},
		{[]string{"gc", "--kept", "--all"}, "already remove kept sandboxes"},
		{[]string{"gc", "--kept", "--older-than", "1h"}, "already remove kept sandboxes"},
		{[]string{"gc", "--older-than", "-1h"}, "must be positive"},
		{[]string{"gc", "--output", "yaml"}, "expected table or json"},
		{[]string{"gc", "--heartbeat-max-age", "0s"}, "--heartbeat-max-age 0s: must be positive"},
		{[]string{"gc", "extra"}, "expected 0 argument(s)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tc.args, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errOut.String(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}

// localOrphans points the local runtime's default base directory at a test
// directory and creates n sandboxes there owned by a process that exited.
func localOrphans(t *testing.T, n int) (*local.Runtime, []string) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	proc := exec.Command("true")
	require.NoError(t, proc.Run())
	host, err := os.Hostname()
	require.NoError(t, err)
	rt, err := local.New(local.WithBaseDir(filepath.Join(tmp, "rbx-local")), local.WithOwner(fmt.Sprintf("%s/%d/1", host, proc.Process.Pid)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	var ids []string
	for i := range n {
		sb, err := rt.Create(context.Background(), sandbox.Spec{Mode: sandbox.ModeExec, Labels: map[string]string{sandbox.LabelTask: fmt.Sprint("task-", i)}})
		t.Cleanup(func() {
			if sb != nil {
				_ = sb.Remove(context.Background())
			}
		})
		require.NoError(t, err)
		ids = append(ids, sb.ID())
	}
	return rt, ids
}

func TestGCLocal(t *testing.T) {
	rt, ids := localOrphans(t, 2)
	var out, errOut bytes.Buffer
	s := Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}

	require.Equal(t, exitOK, Run(context.Background(), []string{"gc", "--runtime", "local", "--dry-run"}, s), errOut.String())
	t.Log("\n" + out.String())
	assert.Contains(t, errOut.String(), "would remove 2 local sandbox(es)")
	assert.Contains(t, out.String(), "task-1")
	left, err := rt.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, left, 2, "dry run removes nothing")

	out.Reset()
	require.Equal(t, exitOK, Run(context.Background(), []string{"gc", "--runtime", "local", "--output", "json"}, s), errOut.String())
	var res gcResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, "local", res.Runtime)
	var got []string
	for _, e := range res.Removed {
		got = append(got, e.ID)
		assert.NotEmpty(t, e.Owner)
		assert.GreaterOrEqual(t, e.AgeSecs, 0.0)
	}
	assert.ElementsMatch(t, ids, got)
	left, err = rt.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, left)
}

func TestReapOrphans(t *testing.T) {
	rt, _ := localOrphans(t, 3)
	var errOut bytes.Buffer
	assert.Equal(t, 3, reapOrphans(context.Background(), rt, &errOut))
	assert.Equal(t, "removed 3 local sandbox(es) left by dead rbx processes\n", errOut.String())
	errOut.Reset()
	assert.Equal(t, 0, reapOrphans(context.Background(), rt, &errOut))
	assert.Empty(t, errOut.String(), "silent when there is nothing to remove")
}
