package trajectory_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestLoadJSON(t *testing.T) {
	ts, err := trajectory.Load(filepath.Join("testdata", "deploy-otp.json"))
	require.NoError(t, err)
	require.Len(t, ts, 1)
	tr := ts[0]

	assert.Equal(t, "deploy-otp-ref", tr.ID)
	assert.Equal(t, 0, tr.Line)
	assert.Equal(t, 9, tr.Len())
	assert.Len(t, tr.Messages, 2)
	assert.Equal(t, trajectory.KindShell, tr.Steps[0].Action)
	assert.Equal(t, 30*time.Second, tr.Steps[0].Timeout.D())
	require.NotNil(t, tr.Steps[0].Observation.ExitCode)
	assert.Equal(t, 0, *tr.Steps[0].Observation.ExitCode)
	assert.Equal(t, 42, tr.Steps[0].Tokens)
	assert.Len(t, tr.Steps[0].Messages, 2)
	assert.Equal(t, map[string]string{"otp": "data.code"}, tr.Steps[1].Capture)
	assert.True(t, tr.Steps[1].Volatile)
	assert.False(t, tr.ValidCheckpoint(3), "step 2 has checkpoint: false")
	assert.True(t, tr.ValidCheckpoint(2))
	require.NotNil(t, tr.Steps[6].InsertLine)
	assert.Equal(t, 1, *tr.Steps[6].InsertLine)

	mode, err := tr.Steps[3].FileMode()
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), mode)
}

func TestLoadJSONL(t *testing.T) {
	ts, err := trajectory.Load(filepath.Join("testdata", "set.jsonl"))
	require.NoError(t, err)
	require.Len(t, ts, 3)
	assert.Equal(t, []int{1, 3, 4}, []int{ts[0].Line, ts[1].Line, ts[2].Line}, "blank lines are skipped but counted")
	assert.Equal(t, "noop-only", ts[2].ID)
}

func TestJSONLErrorsNameTheLine(t *testing.T) {
	data := "{\"id\": \"a\", \"task\": \"t\", \"steps\": [{\"action\": \"noop\"}]}\n" +
		"\n" +
		"{\"id\": \"b\", \"task\": \"t\", \"steps\": [{\"action\": \"shell\"}]}\r\n" +
		"{\"id\": \"c\", \"task\": \"t\", \"steps\": [}\n"
	ts, err := trajectory.Parse("set.jsonl", []byte(data), true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `set.jsonl:3:36: steps[0].command: required for action "shell"`)
	assert.Contains(t, err.Error(), `set.jsonl:4:36: invalid JSON: invalid character '}' looking for beginning of value`)
	require.Len(t, ts, 1, "valid lines are returned with the error")
	assert.Equal(t, "a", ts[0].ID)
}

func TestEmptyJSONL(t *testing.T) {
	ts, err := trajectory.Parse("empty.jsonl", []byte("\n  \n"), true)
	require.NoError(t, err)
	assert.Empty(t, ts)
}

func TestLoadWrongExtension(t *testing.T) {
	_, err := trajectory.Load("x.yaml")
	var pe *task.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "x.yaml: expected a trajectory file ending in .json or .jsonl", err.Error())
}

func TestWriteRoundTrip(t *testing.T) {
	for _, file := range []string{"deploy-otp.json", "set.jsonl"} {
		ts, err := trajectory.Load(filepath.Join("testdata", file))
		require.NoError(t, err)
		for _, tr := range ts {
			var buf bytes.Buffer
			require.NoError(t, trajectory.Write(&buf, tr))
			back, err := trajectory.Parse(tr.Path, buf.Bytes(), false)
			require.NoError(t, err, "written:\n%s", buf.String())
			require.Len(t, back, 1)
			back[0].Line = tr.Line
			assert.Equal(t, normalize(t, tr), normalize(t, back[0]))
			assert.NotContains(t, buf.String(), `\u003c`, "HTML characters are not escaped")
		}

		var lines bytes.Buffer
		require.NoError(t, trajectory.WriteLines(&lines, ts))
		back, err := trajectory.Parse(file, lines.Bytes(), true)
		require.NoError(t, err)
		assert.Len(t, back, len(ts))
	}
}

// normalize re-encodes raw chat messages compactly, since Write indents them.
func normalize(t *testing.T, tr *trajectory.Trajectory) *trajectory.Trajectory {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, trajectory.WriteLines(&buf, []*trajectory.Trajectory{tr}))
	out, err := trajectory.Parse(tr.Path, buf.Bytes(), true)
	require.NoError(t, err)
	out[0].Line = 0
	return out[0]
}

func TestResolveTaskPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	write("tasks/deploy.yaml", "id: deploy\nimage: x\nverify: {command: 'true'}\n")
	byID := write("otp.yml", "id: otp\nimage: x\nverify: {command: 'true'}\n")
	write("other.json", `{"id": "other", "image": "x", "verify": {"command": "true"}}`)
	write("traj-with-task-id.json", `{"id": "otp2", "task": "otp", "steps": [{"action": "noop"}]}`)
	write("dup1.yaml", "id: dup\n")
	write("dup2.json", `{"id": "dup"}`)
	trajPath := filepath.Join(dir, "traj.json")

	tests := []struct {
		task, want, wantErr string
	}{
		{task: "tasks/deploy.yaml", want: filepath.Join(dir, "tasks", "deploy.yaml")},
		{task: "otp", want: byID},
		{task: "otp2", wantErr: `none of the 5 task files (*.yaml, *.yml, *.json) in ` + dir + ` has id "otp2"`},
		{task: "missing.yaml", wantErr: "no file " + filepath.Join(dir, "missing.yaml")},
		{task: "dup", wantErr: `task id "dup" is ambiguous`},
	}
	for _, tc := range tests {
		t.Run(tc.task, func(t *testing.T) {
			tr := &trajectory.Trajectory{ID: "x", Task: tc.task, Path: trajPath}
			got, err := tr.ResolveTaskPath()
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	_, err := (&trajectory.Trajectory{ID: "x", Task: "nope", Path: trajPath}).ResolveTaskPath()
	assert.True(t, errors.Is(err, trajectory.ErrTaskNotFound))
}

func TestCheckServices(t *testing.T) {
	ts, err := trajectory.Load(filepath.Join("testdata", "deploy-otp.json"))
	require.NoError(t, err)
	tk := &task.Task{ID: "deploy-otp", Services: map[string]string{"otp": "http://127.0.0.1:1"}}
	require.NoError(t, ts[0].CheckServices(tk))

	tk.Services = map[string]string{"api": "http://127.0.0.1:1"}
	err = ts[0].CheckServices(tk)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `steps[1].url: {{services.otp}}: undefined reference: task "deploy-otp" declares no service "otp"`)
}
