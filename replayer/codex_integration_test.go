package replayer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestIntegrationCodexPatches: a Codex run as Harbor's converter writes
// it (ATIF-v1.7, one step per call, the exit code in the step's
// metadata) replays on Docker: argv shell commands with a workdir,
// apply_patch as a custom tool (an update, an added file), one its tool
// refused (nothing changed), apply_patch through the shell with a
// heredoc (an update and a move, relative to the workdir); the files are
// the agent's after.
func TestIntegrationCodexPatches(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	var steps []any
	call := func(name string, args map[string]any, out string, code int) {
		id := fmt.Sprintf("call_%d", len(steps))
		steps = append(steps, map[string]any{"step_id": len(steps) + 1, "source": "agent", "message": "",
			"tool_calls":  []any{map[string]any{"tool_call_id": id, "function_name": name, "arguments": args}},
			"observation": map[string]any{"results": []any{map[string]any{"source_call_id": id, "content": out}}},
			"extra":       map[string]any{"metadata": map[string]any{"exit_code": code, "duration_seconds": 0.1}}})
	}
	shell := func(script, out string, code int) {
		call("shell", map[string]any{"command": []any{"bash", "-lc", script}, "workdir": "/srv/p", "timeout_ms": 10000}, out, code)
	}
	call("shell", map[string]any{"command": []any{"mkdir", "-p", "/srv/p"}}, "", 0)
	shell("printf 'a\\nb\\nc\\n' > x.txt", "", 0)
	call("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: /srv/p/x.txt\n@@\n a\n-b\n+B\n c\n*** Add File: /srv/p/new.txt\n+hello\n*** End Patch\n"},
		"Success. Updated the following files:\nM /srv/p/x.txt\nA /srv/p/new.txt\n", 0)
	call("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: /srv/p/x.txt\n@@\n-zzz\n+q\n*** End Patch"},
		"apply_patch verification failed: Failed to find expected lines in /srv/p/x.txt:\nzzz", 1)
	shell("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: new.txt\n*** Move to: moved.txt\n@@\n-hello\n+hello world\n*** End Patch\nEOF",
		"Success. Updated the following files:\nM moved.txt\n", 0)
	shell("cat x.txt moved.txt; test ! -e new.txt", "a\nB\nc\nhello world\n", 0)
	shell("grep -c zzz x.txt", "0\n", 1)
	doc, err := json.Marshal(map[string]any{"schema_version": "ATIF-v1.7", "session_id": "codex-1",
		"agent": map[string]any{"name": "codex", "version": "0.46.0"}, "steps": steps})
	require.NoError(t, err)

	res, err := importer.Import(importer.FormatAuto, "codex.json", doc)
	require.NoError(t, err)
	tr := res.Trajectories[0]
	var kinds []trajectory.Kind
	for _, s := range tr.Steps {
		kinds = append(kinds, s.Action)
	}
	assert.Equal(t, []trajectory.Kind{"shell", "shell", "edit_file", "write_file", "noop", "edit_file", "shell", "shell", "shell"}, kinds)
	assert.Empty(t, res.Report.UnknownTools)

	r, err := replayer.New()
	require.NoError(t, err)
	sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", Mode: sandbox.ModeSession})
	rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, tr, tr.Len())
	require.NoError(t, err, "%+v", rep)
}
