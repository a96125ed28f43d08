package server_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
)

// terminalEntry is a task whose agent types into a terminal: a python3
// REPL writes a file, a read -p prompt is answered into another, a
// foreground HTTP server is started, polled and stopped with C-c; the
// verifier checks both files and that the server is gone.
func terminalEntry(t *testing.T) server.Entry {
	t.Helper()
	const prompt = "root@9d8c7b6a5f4e:/workspace#"
	key := func(k, wait, saw string) map[string]any {
		return map[string]any{"action": "keys", "keys": k, "duration": wait, "observation": map[string]any{"output": saw}}
	}
	steps := []map[string]any{
		key("python3\n", "3s", prompt+" python3\n>>>"),
		key("open('answer.txt', 'w').write(str(6 * 7) + '\\n')\n", "1s", ">>> open('answer.txt', 'w').write(str(6 * 7) + '\\n')\n3\n>>>"),
		key("C-d", "1s", prompt),
		key("read -p 'Name? ' name\n", "1s", "Name?"),
		key("Ada\n", "1s", prompt),
		key("echo \"hi $name\" > greeting.txt\n", "1s", prompt),
		key("python3 -m http.server 8000\n", "5s", "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."),
		key("C-c", "1s", "Keyboard interrupt received, exiting.\n"+prompt),
	}
	return writeEntry(t, `id: term-serve
image: rbx/debian:bookworm
shell: terminal
verify: {command: "grep -qx 42 answer.txt && grep -qx 'hi Ada' greeting.txt && ! python3 -c \"import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/')\" 2>/dev/null"}
`, "term-serve", steps)
}

// TestIntegrationServeTerminal: rbx serve hands out a terminal task's
// episodes at every checkpoint k, with the terminal in the state the
// reference reached (a REPL open, a server running), offers the policy
// the keys tool only, and the policy's keystrokes (the reference's rest,
// played through /v1) reach the verifier's pass; the observation is what
// the terminal showed.
func TestIntegrationServeTerminal(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/debian:bookworm")
	e := terminalEntry(t)
	h := newHarness(t, rt, []server.Entry{e})

	var rr server.ResetResponse
	code, raw := h.call("POST", "/v1/reset", map[string]any{"task": "term-serve", "checkpoint": 0}, &rr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, rr.Tools, 1)
	assert.Equal(t, "keys", rr.Tools[0].Function.Name, "a terminal task's one tool")
	var bad map[string]any
	code, raw = h.call("POST", "/v1/episodes/"+rr.Episodes[0].ID+"/step",
		map[string]any{"tool_call": map[string]any{"name": "shell", "arguments": map[string]any{"command": "ls"}}}, &bad)
	assert.Equal(t, http.StatusBadRequest, code, "%s", raw)
	assert.Contains(t, string(raw), "expected one of keys")
	_, _ = h.call("POST", "/v1/episodes/"+rr.Episodes[0].ID+"/close", nil, nil)

	playEveryK(t, h, e, func(i int, sr server.StepResponse) {
		if i == 1 {
			assert.Contains(t, sr.Observation.Output, "\n3\n>>>", "what the REPL answered")
		}
	})
}

// playEveryK resets e's task at every k (three at a time), plays the
// rest of its reference as the policy (seen sees each answer) and
// requires the verifier's pass.
func playEveryK(t *testing.T, h *harness, e server.Entry, seen func(i int, sr server.StepResponse)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3)
	for k := 0; k <= e.Ref.Len(); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ep := h.reset(e.Task.ID, k)
			for i := k; i < e.Ref.Len(); i++ {
				sr := h.step(ep.ID, refCall(t, e.Ref, i), false)
				assert.False(t, sr.Terminated, "k = %d, step %d: %+v", k, i, sr.Observation)
				seen(i, sr)
			}
			er := h.evaluate(ep.ID)
			assert.Equal(t, 1.0, er.Reward, "k = %d: %+v", k, er)
		}()
	}
	wg.Wait()
}

// TestIntegrationOpenEnvTerminal: over OpenEnv's /ws, a terminal task's
// reset lists its one tool (keys, and submit), a keys call types into the
// terminal and returns what it showed, and the reference's keystrokes
// reach the verifier's pass.
func TestIntegrationOpenEnvTerminal(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/debian:bookworm")
	e := terminalEntry(t)
	h := newHarness(t, rt, []server.Entry{e}, server.WithOpenEnv())
	c := dialWS(t, h.url)
	obs, _, done := c.observation(c.send("reset", map[string]any{"task": e.Task.ID, "checkpoint": 0}))
	require.False(t, done)
	var names []string
	for _, tl := range obs["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{"keys", "submit"}, names)
	obs, _, _ = c.observation(c.send("step", map[string]any{"name": "keys", "arguments": map[string]any{"keys": "echo $((40 + 2))\n", "duration": "2s"}}))
	assert.Contains(t, obs["result"], "42")
	for i := 0; i < e.Ref.Len(); i++ {
		_, _, done = c.observation(c.send("step", callTool(refCall(t, e.Ref, i))))
		require.False(t, done, "step %d", i)
	}
	_, reward, done := c.observation(c.send("step", map[string]any{"type": "call_tool", "tool_name": "submit", "arguments": map[string]any{}}))
	assert.True(t, done)
	assert.EqualValues(t, 1, reward)
}

// TestIntegrationServeTerminalEditor: through rbx serve, at every k, a
// file edited in vi (insert mode, text, Escape, :wq) and paged with less
// (busybox): the episode's terminal holds the editor where the
// reference's did, the policy's keystrokes finish the edit, the verifier
// passes.
func TestIntegrationServeTerminalEditor(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	key := func(k, wait, saw string) map[string]any {
		s := map[string]any{"action": "keys", "keys": k, "duration": wait}
		if saw != "" {
			s["observation"] = map[string]any{"output": saw}
		}
		return s
	}
	e := writeEntry(t, "id: term-vi\nimage: rbx/busybox:latest\nshell: terminal\n"+
		`verify: {command: "printf 'hello from vi\\nsecond line\\n' | cmp - notes.txt"}`+"\n", "term-vi", []map[string]any{
		key("vi notes.txt\n", "2s", "~\n~"),
		key("i", "1s", ""),
		key("hello from vi\nsecond line", "1s", "hello from vi\nsecond line"),
		key("Escape", "1s", ""),
		key(":wq\n", "2s", "/workspace #"),
		key("less notes.txt\n", "2s", "hello from vi\nsecond line"),
		key("q", "1s", "/workspace #"),
	})
	h := newHarness(t, rt, []server.Entry{e})
	playEveryK(t, h, e, func(int, server.StepResponse) {})
}
