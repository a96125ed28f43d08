package rock

import (
	"bytes"
	"mime/multipart"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvelopeTraps(t *testing.T) {
	a := newTestAPI(t)
	tests := []struct {
		name, method, path, body string
		message, err             string
	}{
		{"unknown endpoint", "POST", "/nope", `{}`, "", "no endpoint POST"},
		{"not JSON", "POST", "/start_async", `{`, "invalid parameter", "body:"},
		{"image missing", "POST", "/start_async", `{"memory": "8g"}`, "invalid parameter", "image: field required"},
		{"image blank", "POST", "/start_async", `{"image": "  "}`, "invalid parameter", "image"},
		{"bad rbx ref", "POST", "/start_async", `{"image": "rbx://t@x"}`, "async start sandbox failed", "expected @auto or @k"},
		{"gpus", "POST", "/start_async", `{"image": "x", "num_gpus": 1}`, "async start sandbox failed", "no GPUs"},
		{"bad memory", "POST", "/start_async", `{"image": "x", "memory": "lots"}`, "invalid parameter", "memory"},
		{"unknown sandbox status", "GET", "/get_status?sandbox_id=nope", ``, "get sandbox status failed", "Sandbox nope not found"},
		{"status without id", "GET", "/get_status", ``, "invalid parameter", "sandbox_id"},
		{"token", "GET", "/get_token?account=primary", ``, "get token failed", "/upload"},
		{"run on unknown sandbox", "POST", "/run_in_session", `{"sandbox_id": "nope", "command": "ls"}`, "", "sandbox nope not found"},
		{"run without command", "POST", "/run_in_session", `{"sandbox_id": "nope"}`, "invalid parameter", "command"},
		{"bad check", "POST", "/run_in_session", `{"sandbox_id": "x", "command": "ls", "check": "loud"}`, "invalid parameter", "check"},
		{"stop unknown", "POST", "/stop", `{"sandbox_id": "nope"}`, "stop sandbox failed", "not found"},
		{"upload not multipart", "POST", "/upload", `{}`, "invalid parameter", "multipart"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.method, tc.path, "application/json", strings.NewReader(tc.body))
			assert.Equal(t, statusFailed, r.Status)
			if tc.message == "" {
				assert.Nil(t, r.Message)
			} else if assert.NotNil(t, r.Message) {
				assert.Equal(t, tc.message, *r.Message)
			}
			require.NotNil(t, r.Error)
			assert.Contains(t, *r.Error, tc.err)
		})
	}
}

// TestSandboxLifecycle replays the calls ROLL's sandbox manager and the
// ROCK SDK make, on the local backend.
func TestSandboxLifecycle(t *testing.T) {
	a := newTestAPI(t)
	r := a.post("/start_async", map[string]any{"image": "python:3.11", "image_os": "linux", "auto_clear_time_minutes": 60,
		"memory": "8g", "cpus": 2, "sandbox_id": nil, "disk": "50G", "num_gpus": nil, "unknown_key": true})
	require.Equal(t, statusSuccess, r.Status)
	res := r.result(t)
	id := res["sandbox_id"].(string)
	assert.NotEmpty(t, res["host_ip"], "ROLL treats an empty host_ip as a failed start")
	assert.Equal(t, "8g", res["memory"])
	require.Eventually(t, func() bool { return a.get("/get_status?sandbox_id=" + id).result(t)["is_alive"] == true }, 30*time.Second, 20*time.Millisecond)
	st := a.get("/get_status?sandbox_id=" + id + "&include_all_states=False").result(t)
	assert.Equal(t, "running", st["state"])
	assert.Equal(t, map[string]any{"status": "success", "message": "sandbox running"}, st["status"].(map[string]any)["docker_run"])
	assert.Equal(t, "8g", st["memory"])
	assert.Equal(t, "image", st["metadata"].(map[string]any)["rbx.kind"])
	for k, v := range st {
		assert.NotNil(t, v, "get_status %s is null", k)
	}

	r = a.post("/create_session", map[string]any{"sandbox_id": id, "session_type": "bash", "session": "agent",
		"startup_source": []string{"setup.sh"}, "env_enable": true, "env": map[string]string{"HOME_X": "/root", "IFLOW_ENV": "train"}})
	require.Equal(t, statusSuccess, r.Status, "%v", r.Error)
	assert.Equal(t, map[string]any{"output": "bash: setup.sh: No such file or directory", "session_type": "bash"}, r.result(t))
	dup := a.post("/create_session", map[string]any{"sandbox_id": id, "session": "agent"})
	assert.Equal(t, statusFailed, dup.Status, "a duplicate session name fails")

	run := func(cmd, check string) reply {
		return a.post("/run_in_session", map[string]any{"sandbox_id": id, "action_type": "bash", "session": "agent",
			"command": cmd, "timeout": nil, "check": check})
	}
	obs := run("echo $IFLOW_ENV; echo err >&2; false", "silent")
	require.Equal(t, statusSuccess, obs.Status)
	assert.Equal(t, map[string]any{"session_type": "bash", "output": "train\nerr", "exit_code": float64(1),
		"failure_reason": "", "expect_string": ""}, obs.result(t))
	obs = run("false", "raise")
	assert.Equal(t, statusFailed, obs.Status)
	assert.Contains(t, *obs.Error, "failed with exit code 1")
	obs = run("false", "ignore")
	require.Equal(t, statusSuccess, obs.Status)
	assert.Nil(t, obs.result(t)["exit_code"], "ignore: no exit code")
	obs = run("echo (", "silent")
	assert.Equal(t, statusFailed, obs.Status, "a syntax error fails whatever check says")
	assert.Contains(t, *obs.Error, "/bin/bash: line 1: syntax error near unexpected token")
	obs = a.post("/run_in_session", map[string]any{"sandbox_id": id, "session": "ghost", "command": "ls", "check": "silent"})
	assert.Equal(t, statusFailed, obs.Status)
	assert.Equal(t, "session 'ghost' does not exist", *obs.Error)

	// ROLL's background run: the job-control notice ends the output, then
	// kill -0 polls until it fails.
	obs = run("nohup sleep 1 < /dev/null > out.txt 2>&1 &", "silent")
	require.Equal(t, statusSuccess, obs.Status)
	out := obs.result(t)["output"].(string)
	m := regexp.MustCompile(`\[\d+\]\s+(\d+)$`).FindStringSubmatch(strings.Split(out, "\n")[len(strings.Split(out, "\n"))-1])
	require.NotNil(t, m, "job notice in %q", out)
	assert.Equal(t, float64(0), run("kill -0 "+m[1], "silent").result(t)["exit_code"])
	polls := 0
	require.Eventually(t, func() bool { polls++; return run("kill -0 "+m[1], "raise").Status == statusFailed }, 10*time.Second, 100*time.Millisecond)
	assert.Greater(t, polls, 1)
	// The SDK's variant echoes the pid between markers.
	obs = run("nohup sleep 0 < /dev/null > /dev/null 2>&1 & echo PIDSTART${!}PIDEND;disown", "raise")
	assert.Regexp(t, `PIDSTART\d+PIDEND$`, obs.result(t)["output"])

	ex := a.post("/execute", map[string]any{"sandbox_id": id, "command": []string{"/bin/bash", "-c", "echo o; echo e >&2; exit 3"}, "timeout": 1200, "cwd": nil, "env": nil})
	require.Equal(t, statusSuccess, ex.Status, "a non-zero exit is still a Success")
	assert.Equal(t, map[string]any{"stdout": "o\n", "stderr": "e\n", "exit_code": float64(3)}, ex.result(t))
	ex = a.post("/execute", map[string]any{"sandbox_id": id, "command": "echo $X", "env": map[string]string{"X": "y"}})
	assert.Equal(t, "y\n", ex.result(t)["stdout"])

	w := a.post("/write_file", map[string]any{"sandbox_id": id, "path": "deep/dir/a.txt", "content": "héllo\n"})
	assert.Equal(t, map[string]any{"success": true, "message": ""}, w.result(t))
	rd := a.post("/read_file", map[string]any{"sandbox_id": id, "path": "deep/dir/a.txt", "encoding": nil, "errors": nil})
	assert.Equal(t, map[string]any{"content": "héllo\n"}, rd.result(t))
	rd = a.post("/read_file", map[string]any{"sandbox_id": id, "path": "missing.txt"})
	assert.Equal(t, statusFailed, rd.Status)
	assert.Equal(t, map[string]any{"content": ""}, rd.result(t), "the SDK reads result.content without checking status")

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("target_path", "up/load.sh"))
	require.NoError(t, mw.WriteField("sandbox_id", id))
	fw, err := mw.CreateFormFile("file", "load.sh")
	require.NoError(t, err)
	_, _ = fw.Write([]byte("echo uploaded\n"))
	require.NoError(t, mw.Close())
	up := a.do("POST", "/upload", mw.FormDataContentType(), &body)
	require.Equal(t, statusSuccess, up.Status, "%v", up.Error)
	assert.Equal(t, map[string]any{"success": true, "message": "", "file_name": "load.sh"}, up.result(t))
	assert.Equal(t, "uploaded", run("bash up/load.sh", "raise").result(t)["output"], "relative uploads land where sessions start")

	obs = a.post("/run_in_session", map[string]any{"sandbox_id": id, "session": "agent", "command": "sleep 30", "timeout": 0.3, "check": "silent"})
	assert.Equal(t, statusFailed, obs.Status)
	assert.Equal(t, "timeout after 0.3 seconds while running command 'sleep 30'", *obs.Error)
	assert.Equal(t, "still here", run("echo still here", "raise").result(t)["output"], "Ctrl-C gave the session back")
	bad := a.post("/create_session", map[string]any{"sandbox_id": id, "session": "x", "env": map[string]string{"1BAD": "v"}})
	assert.Equal(t, "invalid parameter", *bad.Message)

	cl := a.post("/close_session", map[string]any{"sandbox_id": id, "session_type": "bash", "session": "agent"})
	assert.Equal(t, map[string]any{"session_type": "bash"}, cl.result(t))
	assert.Equal(t, statusFailed, run("true", "raise").Status, "a closed session is gone")

	stop := a.post("/stop", map[string]any{"sandbox_id": id})
	require.Equal(t, statusSuccess, stop.Status)
	assert.Equal(t, `"`+id+` stopped"`, string(stop.Result))
	assert.Zero(t, a.be.live.Load(), "stop removes the sandbox")
	assert.Equal(t, statusFailed, a.get("/get_status?sandbox_id="+id).Status, "a stopped sandbox is not found by default")
	st = a.get("/get_status?sandbox_id=" + id + "&include_all_states=True").result(t)
	assert.Equal(t, "stopped", st["state"])
	assert.Equal(t, false, st["is_alive"])
	assert.Equal(t, statusFailed, run("true", "raise").Status)
}

func TestSeveralSessionsAndExpiry(t *testing.T) {
	a := newTestAPI(t, WithSessionIdle(time.Second))
	id := a.start(map[string]any{"image": "x", "auto_clear_time_minutes": 0.05})
	for _, s := range []string{"a", "b"} {
		require.Equal(t, statusSuccess, a.post("/create_session", map[string]any{"sandbox_id": id, "session": s}).Status)
		require.Equal(t, statusSuccess, a.post("/run_in_session", map[string]any{"sandbox_id": id, "session": s, "command": "X=" + s}).Status)
	}
	get := func(s string) string {
		return a.post("/run_in_session", map[string]any{"sandbox_id": id, "session": s, "command": "echo $X"}).result(t)["output"].(string)
	}
	assert.Equal(t, "a", get("a"))
	assert.Equal(t, "b", get("b"), "sessions are separate shells")
	for range 6 { // only b in use
		time.Sleep(500 * time.Millisecond)
		assert.Equal(t, "b", get("b"))
	}
	r := a.post("/run_in_session", map[string]any{"sandbox_id": id, "session": "a", "command": "true"})
	assert.Equal(t, statusFailed, r.Status, "an idle session is closed")
	assert.Equal(t, "b", get("b"), "the sandbox and its other sessions live on")
	require.Eventually(t, func() bool { return a.be.live.Load() == 0 }, 15*time.Second, 100*time.Millisecond, "an idle sandbox expires (auto_clear_time_minutes)")
	st := a.get("/get_status?sandbox_id=" + id + "&include_all_states=true").result(t)
	assert.Equal(t, "stopped", st["state"])
	hist := st["state_history"].([]any)
	assert.Equal(t, "running", hist[len(hist)-1].(map[string]any)["from_state"])
	assert.Contains(t, hist[len(hist)-1].(map[string]any)["event"], "auto clear")
}

// TestSweepWhileSessionStarts: create_session reserves the name with a nil
// session while bash starts; the janitor and stop must step over it.
func TestSweepWhileSessionStarts(t *testing.T) {
	a := newTestAPI(t, WithSessionIdle(time.Nanosecond))
	id := a.start(map[string]any{"image": "x"})
	a.h.mu.Lock()
	b := a.h.boxes[id]
	a.h.mu.Unlock()
	b.mu.Lock()
	b.sessions["starting"] = nil
	b.mu.Unlock()
	a.h.sweep(time.Now().Add(time.Hour))
	require.Equal(t, statusSuccess, a.post("/stop", map[string]any{"sandbox_id": id}).Status)
}

// TestFailedStartIsForgotten: a failed start stays pending with a failed
// phase (the SDK reads it), then is forgotten like a stopped sandbox.
func TestFailedStartIsForgotten(t *testing.T) {
	a := newTestAPI(t)
	r := a.post("/start_async", map[string]any{"image": "rbx://task@auto"})
	id := r.result(t)["sandbox_id"].(string)
	require.Eventually(t, func() bool {
		st := a.get("/get_status?sandbox_id=" + id).result(t)
		return st["status"].(map[string]any)["docker_run"].(map[string]any)["status"] == "failed"
	}, 10*time.Second, 20*time.Millisecond)
	st := a.get("/get_status?sandbox_id=" + id).result(t)
	assert.Equal(t, "pending", st["state"])
	assert.Equal(t, false, st["is_alive"])
	a.h.sweep(time.Now().Add(2 * time.Hour))
	assert.Equal(t, statusFailed, a.get("/get_status?sandbox_id="+id+"&include_all_states=true").Status)
}
