package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/task"
)

// TestIntegrationPrefilterSIGINT: Ctrl-C in the middle of a prefilter run
// cancels the in-flight replays, writes the partial report (the unfinished
// trajectory interrupted, the finished one decided), removes every container
// and exits 130.
func TestIntegrationPrefilterSIGINT(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	id := fmt.Sprintf("pfsig-%d", time.Now().UnixNano())
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"),
		[]byte("id: "+id+"\nimage: rbx/busybox:latest\nverify: {command: \"true\"}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "quick"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quick", "task.yaml"),
		// another memory limit: another sandbox class, so that the slow
		// task's sandboxes are told apart by their class label
		[]byte("id: "+id+"-quick\nimage: rbx/busybox:latest\nlimits: {memory: 200MiB}\nverify: {command: \"true\"}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quick", "a.json"), []byte(`{"id": "quick", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "echo hi", "observation": {"output": "bye\n"}}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b-slow.json"), []byte(`{"id": "slow", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "sleep 60", "timeout": "120s"}]}`), 0o644))
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "prefilter", dir, "--runtime", "docker", "--repeats", "2", "--concurrency", "4", "--report", report)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	// Without a terminal, prefilter prints one line per verdict on stderr.
	quickDone := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "quick/a.json") {
				close(quickDone)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	slow, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	// Sandboxes carry their class, not their task: tasks of a class share them.
	selector := map[string]string{reset.LabelClass: reset.ClassKey(slow)}
	require.Eventually(t, func() bool {
		list, err := rt.List(context.Background(), selector)
		return err == nil && len(list) == 2
	}, 60*time.Second, 100*time.Millisecond, "the slow trajectory's two repeats are running")
	select { // the quick one's verdict has landed
	case <-quickDone:
	case <-time.After(60 * time.Second):
		t.Fatal("no verdict for quick/a.json")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitInterrupted, ee.ExitCode())
	list, err := rt.List(context.Background(), selector)
	require.NoError(t, err)
	assert.Empty(t, list, "no container left behind")
	rep, err := prefilter.ReadReport(report)
	require.NoError(t, err, "the partial report is written")
	assert.True(t, rep.Interrupted)
	require.Len(t, rep.Results, 2)
	assert.Equal(t, prefilter.StatusInterrupted, rep.Results[0].Status, "b-slow.json")
	assert.Equal(t, reason.Interrupted, rep.Results[0].Reason, "interrupted is not a rejection")
	assert.Zero(t, rep.Summary.ByReason[reason.Interrupted], "nor counted as one")
	assert.Equal(t, 1, rep.Summary.Interrupted)
	assert.Equal(t, prefilter.StatusRejected, rep.Results[1].Status, "quick/a.json")
	assert.Equal(t, reason.Output, rep.Results[1].Reason)
	quick, err := task.Load(filepath.Join(dir, "quick", "task.yaml"))
	require.NoError(t, err)
	list, err = rt.List(context.Background(), map[string]string{reset.LabelClass: reset.ClassKey(quick)})
	require.NoError(t, err)
	assert.Empty(t, list, "the quick task's sandboxes are gone too")
}
