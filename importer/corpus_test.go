package importer

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func corpusDir() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpus", "trajectories")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found at ../shared/corpus/trajectories (relative to the repository); skipping")
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	require.NoError(t, err)
	return b
}

func TestImportCorpus(t *testing.T) {
	tests := []struct {
		file    string
		format  Format
		actions map[trajectory.Kind]int
		unknown map[string]int
		check   func(t *testing.T, s []trajectory.Step)
	}{
		{"mini-swe-agent/local.traj.json", FormatMiniSWEAgent, map[trajectory.Kind]int{"shell": 2}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "echo 'hello world'", s[0].Command)
			assert.Equal(t, "hello world\n", s[0].Observation.Output)
			assert.Equal(t, 0, *s[0].Observation.ExitCode)
		}},
		{"mini-swe-agent/github_issue.traj.json", FormatMiniSWEAgent, map[trajectory.Kind]int{"shell": 10}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "ls -la", s[1].Command)
			assert.Equal(t, 1, *s[0].Observation.ExitCode)
			assert.Contains(t, s[8].Command, "cat > tests/missing_colon.py << 'EOF'\n")
		}},
		{"swe-agent/6e44b9__sweagenttestrepo-1c2844.traj", FormatSWEAgent, map[trajectory.Kind]int{"noop": 1, "read_file": 1, "edit_file": 1, "shell": 1}, map[string]int{"find_file": 1}, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "/SWE-agent__test-repo/tests/missing_colon.py", s[2].Path)
			assert.Equal(t, "def division(a: float, b: float) -> float:", *s[2].New)
			assert.Equal(t, "python3 /SWE-agent__test-repo/tests/missing_colon.py", s[3].Command)
			assert.Equal(t, "8.2", s[3].Observation.Output)
		}},
		{"swe-agent/function_calling_simple.traj", FormatSWEAgent, map[trajectory.Kind]int{"noop": 2, "read_file": 1, "edit_file": 1, "shell": 1}, map[string]int{"find_file": 1}, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "tests/missing_colon.py", s[1].Path)
			assert.Equal(t, "tests/missing_colon.py", s[2].Path)
			assert.Equal(t, "submit", s[4].Note)
		}},
		{"openhands/basic.json", FormatOpenHands, map[trajectory.Kind]int{"write_file": 1, "noop": 1}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "/workspace/game_2048.py", s[0].Path)
			assert.Contains(t, *s[0].Content, "class Game2048:") // only in the tool-call arguments
		}},
		{"openhands/basic_gui_mode.json", FormatOpenHands, map[trajectory.Kind]int{"shell": 2, "write_file": 2, "noop": 1}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "mkdir -p /workspace/todo-app", s[0].Command)
			assert.Equal(t, 0, *s[0].Observation.ExitCode)
			assert.Contains(t, *s[2].Content, "createApp")
			// Exit code -1: the server was left running; it is started in the
			// background, from the directory the agent's shell moved to.
			assert.Contains(t, s[3].Command, "cd /workspace/todo-app && mkdir -p /tmp/.rbx-bg")
			assert.Contains(t, s[3].Command, "'python3 -m http.server 8000'")
			assert.Equal(t, "ignore", s[3].Compare)
		}},
		{"openhands/basic_interactions.json", FormatOpenHands, map[trajectory.Kind]int{"noop": 3}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "1 + 1 equals 2.", s[0].Note)
		}},
		{"openhands/wrong_initial_state.json", FormatOpenHands, map[trajectory.Kind]int{"shell": 3, "noop": 1}, nil, func(t *testing.T, s []trajectory.Step) {
			assert.Equal(t, "mv /workspace/game_2048.py /workspace/2048.py", s[1].Command)
			assert.Equal(t, "find /workspace -maxdepth 2 -not -path '*/.*'", s[0].Command)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readCorpus(t, tt.file)
			f, err := Detect(data)
			require.NoError(t, err)
			assert.Equal(t, tt.format, f)
			res, err := Import(FormatAuto, tt.file, data)
			require.NoError(t, err)
			require.Len(t, res.Trajectories, 1)
			assert.Equal(t, tt.actions, res.Report.Actions)
			assert.Equal(t, tt.unknown, res.Report.UnknownTools)
			tt.check(t, res.Trajectories[0].Steps)
			assertRoundTrips(t, res.Trajectories[0])
		})
	}
}
