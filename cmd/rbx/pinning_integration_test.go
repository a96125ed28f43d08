package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// grepChat is an OpenAI-messages trajectory: tool calls and their results,
// no exit codes. Step 0 prints nothing, so only its exit code says whether
// the word was found.
const grepChat = `[{"role": "user", "content": "check the list and finish"},
 {"role": "assistant", "content": null, "tool_calls": [
   {"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"grep -q banana words.txt\"}"}}]},
 {"role": "tool", "tool_call_id": "a", "content": ""},
 {"role": "assistant", "content": null, "tool_calls": [
   {"id": "b", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"wc -l < words.txt\"}"}}]},
 {"role": "tool", "tool_call_id": "b", "content": "2\n"},
 {"role": "assistant", "content": null, "tool_calls": [
   {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"touch done\"}"}}]},
 {"role": "tool", "tool_call_id": "c", "content": ""}]`

// grepTask writes a busybox task whose workspace holds words.txt.
func grepTask(t *testing.T, dir, id string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "words.txt"), []byte("apple\nbanana\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte("id: "+id+
		"\nimage: rbx/busybox:latest\nworkdir: /workspace\nfiles:\n  data/: /workspace/\nverify: {command: \"test -f done\"}\n"), 0o644))
}

func rbx(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, Streams{Out: &stdout, ErrOut: &stderr})
	return code, stdout.String(), stderr.String()
}

// TestIntegrationPinnedExitCodes: a trajectory imported without exit codes,
// after `rbx prefilter --out kept`, diverges on replay when a step's exit
// code changes — which the unpinned import does not notice.
func TestIntegrationPinnedExitCodes(t *testing.T) {
	dockerOrSkip(t)
	id := fmt.Sprintf("pin-%d", time.Now().UnixNano())
	src := t.TempDir()
	grepTask(t, src, id)
	require.NoError(t, os.WriteFile(filepath.Join(src, "chat.json"), []byte(grepChat), 0o644))
	runs := filepath.Join(src, "runs")
	code, _, stderr := rbx(t, "import", "openai", filepath.Join(src, "chat.json"), "--out", runs, "--task", "../task.yaml", "--id", "grep")
	require.Equal(t, exitOK, code, stderr)
	imported := filepath.Join(runs, "grep.json")
	trs, err := trajectory.Load(imported)
	require.NoError(t, err)
	require.Len(t, trs[0].Steps, 3)
	for _, s := range trs[0].Steps {
		assert.True(t, s.Observation == nil || s.Observation.ExitCode == nil, "OpenAI messages record no exit code")
	}

	kept := filepath.Join(t.TempDir(), "kept")
	code, _, stderr = rbx(t, "prefilter", runs, "--repeats", "2", "--runtime", "docker", "--out", kept)
	require.Equal(t, exitOK, code, stderr)
	keptFile := filepath.Join(kept, id, "grep.json")
	trs, err = trajectory.Load(keptFile)
	require.NoError(t, err, "the kept trajectory is written")
	for i, s := range trs[0].Steps {
		require.NotNil(t, s.Observation, "step %d", i)
		assert.True(t, s.Observation.Pinned, "step %d", i)
		assert.Equal(t, 0, *s.Observation.ExitCode, "step %d", i)
		assert.Equal(t, "normalized", s.Compare, "step %d", i)
	}
	assert.Equal(t, replayer.Digest(replayer.CompareNormalized, "2\n"), trs[0].Steps[1].Observation.OutputSHA256)

	// The word is gone: step 0 now exits 1, and prints nothing either way.
	for _, d := range []string{src, filepath.Join(kept, id)} {
		require.NoError(t, os.WriteFile(filepath.Join(d, "data", "words.txt"), []byte("apple\ncherry\n"), 0o644))
	}
	code, _, stderr = rbx(t, "replay", imported, "--to", "1", "--runtime", "docker")
	assert.Equal(t, exitOK, code, "unpinned, step 0 checks nothing: %s", stderr)

	code, stdout, stderr := rbx(t, "replay", keptFile, "--to", "1", "--runtime", "docker", "--output", "json")
	require.Equal(t, exitDiverged, code, stderr)
	var res replayResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	require.NotNil(t, res.Report.Divergence)
	assert.Equal(t, 0, res.Report.Divergence.Index)
	assert.Equal(t, reason.ExitCode, res.Report.Divergence.Reason)
	assert.Equal(t, "0", res.Report.Divergence.Expected)
	assert.Equal(t, "1", res.Report.Divergence.Got)
}

// TestIntegrationPrefilterForeignWithTasks: a folder of OpenAI-messages
// trajectories is prefiltered directly, each matched to its task by id.
func TestIntegrationPrefilterForeignWithTasks(t *testing.T) {
	dockerOrSkip(t)
	id := fmt.Sprintf("foreign-%d", time.Now().UnixNano())
	tasks, trajs := t.TempDir(), t.TempDir()
	grepTask(t, filepath.Join(tasks, id), id)
	require.NoError(t, os.WriteFile(filepath.Join(trajs, id+".json"), []byte(grepChat), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(trajs, "stray.json"), []byte(grepChat), 0o644))
	code, stdout, stderr := rbx(t, "prefilter", trajs, "--tasks", tasks, "--repeats", "1", "--runtime", "docker", "--output", "json")
	require.Equal(t, exitOK, code, stderr)
	var rep prefilter.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Len(t, rep.Results, 1, "stray.json matches no task")
	assert.Equal(t, prefilter.StatusKept, rep.Results[0].Status, "%+v", rep.Results[0])
	assert.Equal(t, id, rep.Results[0].Task)
	assert.Contains(t, stderr, "stray.json: openai trajectory, 3 steps, no task known")
	assert.Contains(t, stderr, "--task TASK.yaml")
}

// TestPrefilterNothingToJudge: an empty folder, or one of foreign
// trajectories whose task is unknown, is exit 2 naming what was found —
// before any engine is needed.
func TestPrefilterNothingToJudge(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus", "trajectories")
	tests := []struct {
		name string
		dir  string
		want []string
	}{
		{name: "empty", dir: t.TempDir(), want: []string{"no trajectory to prefilter", "0 task files"}},
		{name: "foreign without tasks", dir: corpus,
			want: []string{"no trajectory to prefilter", "openhands trajectories (no task known)", "swe-agent", "mini-swe-agent", "--task TASK.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.dir); err != nil {
				t.Skipf("%s: %v", tc.dir, err)
			}
			code, stdout, stderr := rbx(t, "prefilter", tc.dir, "--runtime", "local")
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			assert.False(t, strings.Contains(stderr, "kept 0 of 0"))
		})
	}
}
