package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
)

// durableEntry is a Debian session task whose reference writes a file,
// with limits (a YAML flow mapping) and verify (the verify mapping's
// fields).
func durableEntry(t *testing.T, id, limits, verify string) server.Entry {
	t.Helper()
	steps := []map[string]any{
		{"action": "shell", "command": "mkdir -p /work && cd /work", "observation": map[string]any{"exit_code": 0}},
		{"action": "shell", "command": "echo done > /work/out", "observation": map[string]any{"exit_code": 0}},
	}
	return writeEntry(t, "id: "+id+"\nimage: rbx/debian:bookworm\nworkdir: /root\nshell: session\nlimits: "+limits+
		"\nverify: {"+verify+"}\n", id, steps)
}

// containerOf finds the container behind an episode: a step leaves a
// mark (with an output that replays the same anywhere), and the engine
// is asked which running container holds it.
func containerOf(t *testing.T, h *harness, cli *client.Client, epID string) string {
	t.Helper()
	mark := "/tmp/.mark-" + epID
	h.step(epID, shellCall("touch "+mark, ""), false)
	ctx := context.Background()
	list, err := cli.ContainerList(ctx, container.ListOptions{})
	require.NoError(t, err)
	for _, c := range list {
		if _, err := cli.ContainerStatPath(ctx, c.ID, mark); err == nil {
			return c.ID
		}
	}
	require.FailNow(t, "no container holds "+mark)
	return ""
}

type evaluation struct {
	Reward    float64     `json:"reward"`
	Success   bool        `json:"success"`
	Observed  bool        `json:"observed"`
	Recovered int         `json:"recovered"`
	End       *server.End `json:"end"`
}

// TestIntegrationServeAttribution: every way an episode's sandbox fails
// is charged by the documented rule (docs/durability.md), on Docker:
// the policy's own fork bomb and memory hog are its failures (reward 0,
// counted by the curriculum); a sandbox killed or frozen from outside is
// rebuilt by replay and the episode goes on under its id (recovered);
// a verifier that cannot run on the reference's end state either is the
// task's.
func TestIntegrationServeAttribution(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/debian:bookworm")
	check := `command: "test -f /work/out"`
	entries := []server.Entry{
		durableEntry(t, "dur-pids", "{pids: 64, step_timeout: 10s}", `command: "cat /work/out | grep -q done"`),
		durableEntry(t, "dur-mem", "{memory: 64m, step_timeout: 20s}", check),
		durableEntry(t, "dur-kill", "{step_timeout: 10s}", check),
		durableEntry(t, "dur-freeze", "{step_timeout: 3s}", check+", timeout: 3s"),
		durableEntry(t, "dur-verifier", "{step_timeout: 10s}", `command: "/opt/nope/check.sh"`),
	}
	h := newHarness(t, rt, entries, server.WithEpisodeTTL(5*time.Minute))
	ctx := context.Background()
	cli := rt.Client()

	t.Run("fork bomb is the policy's", func(t *testing.T) {
		ep := h.resetFed("dur-pids", 1)
		// Every process slot taken (the task not done): the verifier may
		// not even start; either way the failure is the policy's, never
		// the infrastructure's (no 410, no repair).
		_ = h.step(ep.ID, shellCall("for j in 1 2 3; do (while :; do sleep 1000 & done) >/dev/null 2>&1 & done; sleep 5; echo planted", "8s"), false)
		var ev evaluation
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, &ev)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		assert.Zero(t, ev.Reward, "%s", raw)
		assert.False(t, ev.Success)
		assert.True(t, ev.Observed, "the failure reaches the curriculum: %s", raw)
		if ev.End != nil { // the verifier could not run: the end says why
			assert.Equal(t, "policy", ev.End.Attribution, "%s", raw)
			assert.Equal(t, "pids_exhausted", ev.End.Reason, "%s", raw)
		}
		assert.Zero(t, ev.Recovered, "nothing of the policy's is repaired")
		code, raw = h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, nil)
		assert.Equal(t, http.StatusOK, code, "a retried evaluate gets the same answer: %s", raw)
	})

	t.Run("memory hog is the policy's", func(t *testing.T) {
		ep := h.resetFed("dur-mem", 1)
		sr := h.step(ep.ID, shellCall("head -c 512m /dev/zero | tail > /dev/null; echo rc=$?", "15s"), false)
		assert.Contains(t, sr.Observation.Output, "rc=137", "the hog was OOM-killed inside its limit: %+v", sr.Observation)
		var ev evaluation
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, &ev)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		assert.Zero(t, ev.Reward)
		assert.True(t, ev.Observed, "%s", raw)
		assert.Zero(t, ev.Recovered, "nothing of the policy's is repaired")
	})

	t.Run("external kill is repaired", func(t *testing.T) {
		ep := h.reset("dur-kill", 1) // the file is not written yet
		victim := containerOf(t, h, cli, ep.ID)
		sr := h.step(ep.ID, shellCall("echo planted > /root/mine; cat /root/mine", ""), false)
		require.Equal(t, "planted\n", sr.Observation.Output)
		require.NoError(t, cli.ContainerKill(ctx, victim, "KILL"))
		sr = h.step(ep.ID, shellCall("cat /root/mine; echo done > /work/out", ""), false)
		assert.Equal(t, "planted\n", sr.Observation.Output, "the episode's own actions were redone: %+v", sr)
		assert.Equal(t, 1, sr.Info.Recovered)
		assert.NotEqual(t, victim, containerOf(t, h, cli, ep.ID), "a new sandbox")
		var ev evaluation
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, &ev)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		assert.Equal(t, 1.0, ev.Reward, "%s", raw)
		assert.Equal(t, 1, ev.Recovered)
		assert.Nil(t, ev.End)
		_, raw = h.call("GET", "/metrics", nil, nil)
		assert.Contains(t, string(raw), `rbx_serve_episodes_recovered_total{reason="sandbox_killed"} 1`, "the engine's kill is the evidence")
	})

	t.Run("freeze past the deadline is repaired", func(t *testing.T) {
		ep := h.reset("dur-freeze", 2)
		victim := containerOf(t, h, cli, ep.ID)
		require.NoError(t, cli.ContainerPause(ctx, victim))
		t.Cleanup(func() { _ = cli.ContainerUnpause(ctx, victim) })
		start := time.Now()
		sr := h.step(ep.ID, shellCall("echo ran >> /work/log; cat /work/log", "2s"), false)
		took := time.Since(start)
		assert.Equal(t, "ran\n", sr.Observation.Output, "%+v", sr)
		assert.False(t, sr.Observation.TimedOut)
		assert.Equal(t, 1, sr.Info.Recovered)
		assert.Less(t, took, 40*time.Second, "rbx's deadline, not the freeze's end")
		_, err := cli.ContainerInspect(ctx, victim)
		assert.Error(t, err, "the frozen sandbox was removed before the answer: its command can never run later")
		var ev evaluation
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, &ev)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		assert.Equal(t, 1.0, ev.Reward, "%s", raw)
		_, raw = h.call("GET", "/metrics", nil, nil)
		assert.Contains(t, string(raw), `rbx_serve_episodes_recovered_total{reason="sandbox_frozen"} 1`, "the engine's pause is the evidence")
	})

	t.Run("broken verifier is the task's", func(t *testing.T) {
		ep := h.reset("dur-verifier", 2)
		code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/evaluate", nil, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, code, "%s", raw)
		assert.Equal(t, server.CodeTaskBroken, errorCode(t, raw))
		assert.Contains(t, string(raw), `"attribution":"task"`)
		assert.Contains(t, string(raw), `"reason":"verifier_broken"`)
		assert.Contains(t, string(raw), `"retryable":false`)
		var rec struct {
			State string      `json:"state"`
			End   *server.End `json:"end"`
		}
		code, raw = h.call("GET", "/v1/episodes/"+ep.ID, nil, &rec)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		assert.Equal(t, server.StateFailed, rec.State)
		require.NotNil(t, rec.End)
		assert.Equal(t, "task", rec.End.Attribution)
	})
}
