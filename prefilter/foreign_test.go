package prefilter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/prefilter"
)

// chatDoc is an OpenAI-messages trajectory: tool calls, tool results, no
// exit codes.
const chatDoc = `[{"role":"user","content":"count"},
	{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"echo hi\"}"}}]},
	{"role":"tool","tool_call_id":"a","content":"hi\n"}]`

func TestFindForeignFormats(t *testing.T) {
	const taskYAML = "id: %s\nimage: rbx/busybox:latest\nverify: {command: 'true'}\n"
	tasks := t.TempDir()
	write(t, tasks, "count/task.yaml", strings.ReplaceAll(taskYAML, "%s", "count"))
	write(t, tasks, "other/task.yaml", strings.ReplaceAll(taskYAML, "%s", "other"))
	tests := []struct {
		name    string
		files   map[string]string
		opts    func(dir string) []prefilter.FindOption
		task    string // the task id the trajectory is judged with; "" when not judged
		usable  bool
		message []string // in Usable's error
	}{
		{name: "no task known", files: map[string]string{"count.json": chatDoc, "README.md": "hi"},
			message: []string{"1 openai trajectory (no task known)", "count.json: openai trajectory, 1 steps, no task known", "--task TASK.yaml", "1 other file (README.md)"}},
		{name: "--tasks by file name", files: map[string]string{"count.json": chatDoc},
			opts: func(string) []prefilter.FindOption { return []prefilter.FindOption{prefilter.WithTasksDir(tasks)} }, task: "count", usable: true},
		{name: "--tasks by directory name", files: map[string]string{"other/run-1.json": chatDoc},
			opts: func(string) []prefilter.FindOption { return []prefilter.FindOption{prefilter.WithTasksDir(tasks)} }, task: "other", usable: true},
		{name: "--task for all", files: map[string]string{"x/run.json": chatDoc},
			opts: func(string) []prefilter.FindOption {
				return []prefilter.FindOption{prefilter.WithTask(filepath.Join(tasks, "other", "task.yaml"))}
			}, task: "other", usable: true},
		{name: "task beside it", files: map[string]string{"run.json": chatDoc, "task.yaml": strings.ReplaceAll(taskYAML, "%s", "beside")},
			task: "beside", usable: true},
		{name: "empty folder", files: map[string]string{}, message: []string{"0 task files", "expected native trajectories"}},
		{name: "only tasks", files: map[string]string{"task.yaml": strings.ReplaceAll(taskYAML, "%s", "t")}, message: []string{"1 task file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				write(t, dir, name, content)
			}
			var opts []prefilter.FindOption
			if tc.opts != nil {
				opts = tc.opts(dir)
			}
			found, err := prefilter.Find([]string{dir}, opts...)
			require.NoError(t, err)
			uerr := found.Usable([]string{dir})
			if !tc.usable {
				require.ErrorIs(t, uerr, prefilter.ErrNothingToJudge)
				for _, m := range tc.message {
					assert.Contains(t, uerr.Error(), m)
				}
				return
			}
			require.NoError(t, uerr)
			require.Len(t, found.Items, 1)
			it := found.Items[0]
			require.NoError(t, it.Err)
			require.NotNil(t, it.Task)
			assert.Equal(t, tc.task, it.Task.ID)
			assert.Equal(t, 1, it.Traj.Len())
			assert.Nil(t, it.Traj.Steps[0].Observation.ExitCode, "OpenAI messages record no exit code")
		})
	}
}

func TestFindCorpusTrajectoriesNamesWhatItFound(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus", "trajectories")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared corpus not found at %s", dir)
	}
	found, err := prefilter.Find([]string{dir})
	require.NoError(t, err)
	assert.Empty(t, found.Items)
	formats := map[importer.Format]int{}
	for _, fr := range found.Foreign {
		formats[fr.Format]++
		assert.Empty(t, fr.Task)
	}
	assert.Equal(t, map[importer.Format]int{importer.FormatSWEAgent: 2, importer.FormatMiniSWEAgent: 2, importer.FormatOpenHands: 4}, formats)
	err = found.Usable([]string{dir})
	require.ErrorIs(t, err, prefilter.ErrNothingToJudge)
	for _, m := range []string{"swe-agent", "mini-swe-agent", "openhands", "--task TASK.yaml", "SOURCE"} {
		assert.Contains(t, err.Error(), m)
	}
}
