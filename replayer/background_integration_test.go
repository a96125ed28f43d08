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
)

// fetch prints a page of the server on port, retrying while it starts.
func fetch(port int) string {
	return fmt.Sprintf(`python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:%d/index.html').read().decode().strip())"`, port)
}

// ohRun is an OpenHands run action and its observation (exit code -1:
// still running when the agent moved on).
func ohRun(id int, cmd string, input bool, code int, out string) []map[string]any {
	return []map[string]any{
		{"id": id, "source": "agent", "action": "run", "args": map[string]any{"command": cmd, "is_input": input, "blocking": false}},
		{"id": id + 1, "source": "agent", "observation": "run", "cause": id, "content": out,
			"extras": map[string]any{"command": cmd, "metadata": map[string]any{"exit_code": code}}},
	}
}

const ohNoNewOutput = "\n[The command has no new output after 10 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, send keys to interrupt/kill the command, or use the timeout parameter in execute_bash for future commands.]"

// notebook is a Jupyter notebook of two code cells with ids.
const notebook = `{"cells": [{"cell_type": "code", "id": "a1", "metadata": {}, "source": "x = 1", "execution_count": 3, "outputs": [{"output_type": "stream", "name": "stdout", "text": "1"}]},
 {"cell_type": "code", "id": "b2", "metadata": {}, "source": "print(x)", "execution_count": null, "outputs": []}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
`

// TestIntegrationAgentsBackground: commands agents left running replay as
// the agent's tools ran them, on Docker. OpenHands: a foreground server
// the agent moved on from (exit -1) keeps serving, the directory its cd
// moved to stays the shell's, the agent's C-c stops it; a command that
// ended while the agent polled is waited for and its exit code checked.
// Claude Code (in Harbor's ATIF): a Bash run in the background serves the next commands,
// BashOutput that saw it running changes nothing, KillShell stops it (the
// recorded failure of the fetch after is met again); NotebookEdit
// replaces, inserts and deletes cells, and one the tool refused changes
// nothing; a command its Bash killed at its timeout times out again, the
// session going on.
func TestIntegrationAgentsBackground(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	var events []map[string]any
	for _, e := range [][]map[string]any{
		ohRun(1, "mkdir -p /srv/site && echo hello > /srv/site/index.html", false, 0, ""),
		ohRun(3, "cd /srv/site && python3 -m http.server 8000", false, -1, "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."+ohNoNewOutput),
		ohRun(5, "", true, -1, ohNoNewOutput),
		ohRun(7, "ls", false, -1, `[Your command "ls" is NOT executed. The previous command is still running]`),
		ohRun(9, "C-c", true, 130, "^C\nKeyboard interrupt received, exiting."),
		ohRun(11, "pwd", false, 0, "/srv/site"),
		ohRun(13, "sleep 2; echo done; exit 3", false, -1, "[The command has no new output after 1 seconds.]"),
		ohRun(15, "", false, 3, "done"),
		ohRun(17, fetch(8000)+" 2>/dev/null || echo down", false, 0, "down"),
	} {
		events = append(events, e...)
	}
	ohDoc, err := json.Marshal(events)
	require.NoError(t, err)

	// Claude Code as Harbor's converter writes it: one step per call, the
	// tool's own result under extra.metadata.raw_tool_result, the content
	// that text with Harbor's decorations.
	var steps []any
	cc := func(name string, input map[string]any, raw string, isErr bool) {
		id := fmt.Sprintf("toolu_%02d", len(steps))
		content := raw
		if name == "Bash" && raw != "" && !isErr {
			content += "\n\n[stdout]\n" + raw
		}
		if isErr {
			content += "\n\n[error] tool reported failure"
		}
		steps = append(steps, map[string]any{"step_id": len(steps) + 1, "source": "agent", "message": "Executed " + name + " " + id,
			"tool_calls":  []any{map[string]any{"tool_call_id": id, "function_name": name, "arguments": input}},
			"observation": map[string]any{"results": []any{map[string]any{"source_call_id": id, "content": content}}},
			"extra": map[string]any{"metadata": map[string]any{"is_error": isErr,
				"raw_tool_result": map[string]any{"type": "tool_result", "tool_use_id": id, "content": raw, "is_error": isErr}}}})
	}
	cc("Bash", map[string]any{"command": "mkdir -p /srv/cc && echo hi > /srv/cc/index.html"}, "", false)
	cc("Bash", map[string]any{"command": "cd /srv/cc && python3 -m http.server 8001", "run_in_background": true}, "Command running in background with ID: b4f4d5", false)
	cc("Bash", map[string]any{"command": "for i in $(seq 100); do " + fetch(8001) + " 2>/dev/null && break; sleep 0.1; done"}, "hi", false)
	cc("BashOutput", map[string]any{"bash_id": "b4f4d5"}, "<status>running</status>\n\n<timestamp>2025-11-04T20:38:10.566Z</timestamp>", false)
	cc("KillShell", map[string]any{"shell_id": "b4f4d5"}, `{"message":"Successfully killed shell: b4f4d5","shell_id":"b4f4d5"}`, false)
	cc("Bash", map[string]any{"command": fetch(8001) + " 2>/dev/null"}, "Exit code 1", true)
	cc("Write", map[string]any{"file_path": "/srv/n.ipynb", "content": notebook}, "File created successfully at: /srv/n.ipynb", false)
	cc("NotebookEdit", map[string]any{"notebook_path": "/srv/n.ipynb", "cell_id": "a1", "new_source": "x = 2"}, "Updated cell a1 with x = 2", false)
	cc("NotebookEdit", map[string]any{"notebook_path": "/srv/n.ipynb", "cell_id": "a1", "new_source": "# Title", "cell_type": "markdown", "edit_mode": "insert"}, "Inserted cell after a1", false)
	cc("NotebookEdit", map[string]any{"notebook_path": "/srv/n.ipynb", "cell_id": "b2", "edit_mode": "delete"}, "Deleted cell b2", false)
	cc("NotebookEdit", map[string]any{"notebook_path": "/srv/n.ipynb", "cell_id": "zz", "new_source": "y"}, `Cell with ID "zz" not found in notebook.`, true)
	cc("Bash", map[string]any{"command": `python3 -c "import json; print([(c['cell_type'], c['source']) for c in json.load(open('/srv/n.ipynb'))['cells']])"`},
		"[('code', 'x = 2'), ('markdown', '# Title')]", false)
	cc("Bash", map[string]any{"command": "sleep 30; echo late"}, "Exit code 143\nCommand timed out after 2s\nTerminated", true)
	cc("Bash", map[string]any{"command": "echo after"}, "after", false)
	ccDoc, err := json.Marshal(map[string]any{"schema_version": "ATIF-v1.4", "session_id": "s", "agent": map[string]any{"name": "claude-code", "version": "2.0.31"},
		"steps": steps})
	require.NoError(t, err)

	r, err := replayer.New()
	require.NoError(t, err)
	for _, doc := range []struct {
		name string
		data []byte
	}{{"openhands", ohDoc}, {"claude-code", ccDoc}} {
		res, err := importer.Import(importer.FormatAuto, doc.name+".json", doc.data)
		require.NoError(t, err, doc.name)
		tr := res.Trajectories[0]
		// The agents' shells are sessions (a cd stays): session mode.
		t.Run(doc.name, func(t *testing.T) {
			sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", Mode: sandbox.ModeSession})
			rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, tr, tr.Len())
			require.NoError(t, err, "%+v", rep)
			assert.Len(t, rep.Steps, tr.Len())
		})
	}
}

// TestIntegrationOpenHandsREPL: an OpenHands run that typed into a
// program it left running (python3's REPL) replays on the terminal, as in
// OpenHands' own pane: the REPL's answers are checked, its state is the
// agent's, and the commands after it run as usual (Docker).
func TestIntegrationOpenHandsREPL(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	note := "\n[The command has no new output after 10 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]"
	var events []map[string]any
	for _, e := range [][]map[string]any{
		ohRun(1, "python3", false, -1, ">>> "+note),
		ohRun(3, "x = 6 * 7", true, -1, ">>> x = 6 * 7\n>>> "+note),
		ohRun(5, "open('/tmp/x.txt', 'w').write(str(x))", true, -1, ">>> open('/tmp/x.txt', 'w').write(str(x))\n2\n>>> "+note),
		ohRun(7, "C-d", true, 0, "\n[The command completed with exit code 0.]"),
		ohRun(9, "cat /tmp/x.txt", false, 0, "42"),
	} {
		events = append(events, e...)
	}
	doc, err := json.Marshal(events)
	require.NoError(t, err)
	res, err := importer.Import(importer.FormatAuto, "oh.json", doc)
	require.NoError(t, err)
	tr := res.Trajectories[0]
	r, err := replayer.New()
	require.NoError(t, err)
	sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", Mode: sandbox.ModeSession})
	rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, tr, tr.Len())
	require.NoError(t, err, "%+v", rep)
}
