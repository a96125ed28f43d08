package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// serveProc is an `rbx serve` child process.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

func startServe(t *testing.T, rt sandbox.Runtime, bin string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{cmd: exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...), stderr: &bytes.Buffer{}}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() { // drain if still running, then remove what it left
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
		for _, in := range ownedBy(t, rt, p.cmd.Process.Pid) {
			_ = rt.Remove(context.Background(), in.ID)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "rbx serve did not start: %s", p.stderr)
	p.url = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	return p
}

// post sends a JSON call; it returns the status (0 when the connection
// failed) and decodes a 200 answer into out.
func post(url string, body, out any) int {
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		_ = json.Unmarshal(b, out)
	}
	return resp.StatusCode
}

// ownedBy lists the rbx containers whose owner is pid.
func ownedBy(t *testing.T, rt sandbox.Runtime, pid int) []sandbox.Info {
	t.Helper()
	list, err := rt.List(context.Background(), map[string]string{sandbox.LabelManaged: "true"})
	require.NoError(t, err)
	var out []sandbox.Info
	for _, in := range list {
		if _, p, _, ok := sandbox.ParseOwner(in.Labels[sandbox.LabelOwner]); ok && p == pid {
			out = append(out, in)
		}
	}
	return out
}

// TestIntegrationServeKill9: kill -9 the server under load, restart it on
// the same state: every acknowledged outcome is there, the episodes that
// were open resume under their ids (rebuilt by replay at their next call),
// and no container of the old process survives the restart.
func TestIntegrationServeKill9(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS("../../examples/run-sh-path")))
	state := filepath.Join(dir, "state.db")
	args := []string{"--tasks", tasks, "--runtime", "docker", "--state", state, "--pool", "4"}
	old := startServe(t, rt, bin, args...)

	type ack struct {
		id      string
		success bool
	}
	var (
		mu     sync.Mutex
		acked  []ack
		opened = map[string]bool{} // reset acknowledged, not evaluated
		stop   = make(chan struct{})
		wg     sync.WaitGroup
	)
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var rr struct{ Episodes []struct{ ID string } }
				if post(old.url+"/v1/reset", map[string]any{"task": "run-sh-path", "checkpoint": 11, "feed_curriculum": true}, &rr) != http.StatusOK {
					return
				}
				id := rr.Episodes[0].ID
				mu.Lock()
				opened[id] = true
				mu.Unlock()
				cmd := "ls" // the reference's last step: success
				if (c+i)%3 == 0 {
					cmd = "rm run.sh" // a failure, so both outcomes are checked
				}
				if post(old.url+"/v1/episodes/"+id+"/step", map[string]any{"tool_call": map[string]any{"name": "shell", "arguments": map[string]any{"command": cmd}}}, nil) != http.StatusOK {
					return
				}
				var er struct{ Success bool }
				if post(old.url+"/v1/episodes/"+id+"/evaluate", nil, &er) != http.StatusOK {
					return
				}
				mu.Lock()
				delete(opened, id)
				acked = append(acked, ack{id, er.Success})
				mu.Unlock()
			}
		}(c)
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 12 }, 90*time.Second, 50*time.Millisecond)
	// Two episodes held open across the crash: they must resume.
	var held struct{ Episodes []struct{ ID string } }
	require.Equal(t, http.StatusOK, post(old.url+"/v1/reset", map[string]any{"task": "run-sh-path", "checkpoint": 5, "group": 2}, &held))
	oldPID := old.cmd.Process.Pid
	require.NoError(t, old.cmd.Process.Signal(syscall.SIGKILL))
	_ = old.cmd.Wait() // its Cleanup still removes what the restart may not have
	close(stop)
	wg.Wait()
	require.NotEmpty(t, ownedBy(t, rt, oldPID), "the killed server left its pool behind (what the restart must remove)")

	fresh := startServe(t, rt, bin, args...)
	// The start-up reap removes them; a create still in flight in the
	// engine when the process died lands later and goes at the next sweep.
	assert.Eventually(t, func() bool { return len(ownedBy(t, rt, oldPID)) == 0 }, 30*time.Second, 250*time.Millisecond,
		"a container of the killed server survived the restart")
	for _, a := range acked {
		assert.Equal(t, a.success, evaluatedOutcome(t, fresh.url, a.id), a.id)
	}
	var lost struct {
		Episodes    []struct{ ID string }
		LostAtStart int `json:"lost_at_start"`
	}
	resp, err := http.Get(fresh.url + "/v1/episodes?state=lost&limit=1000")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&lost))
	resp.Body.Close()
	lostIDs := map[string]bool{}
	for _, e := range lost.Episodes {
		lostIDs[e.ID] = true
	}
	assert.Len(t, lost.Episodes, lost.LostAtStart)
	assert.Zero(t, lost.LostAtStart, "the episodes open at the crash resume, none is lost")
	for _, e := range held.Episodes {
		// The next call rebuilds the sandbox by replay and goes on.
		var sr struct {
			Observation struct{ Output string }
			Info        struct{ Recovered int }
		}
		require.Equal(t, http.StatusOK, post(fresh.url+"/v1/episodes/"+e.ID+"/step",
			map[string]any{"tool_call": map[string]any{"name": "shell", "arguments": map[string]any{"command": "echo resumed"}}}, &sr), e.ID)
		assert.Equal(t, "resumed\n", sr.Observation.Output, e.ID)
		assert.Equal(t, 1, sr.Info.Recovered, e.ID)
		require.Equal(t, http.StatusOK, post(fresh.url+"/v1/episodes/"+e.ID+"/close", nil, nil), e.ID)
	}
	// The curriculum holds exactly these outcomes, not just as many: every
	// acknowledged one and every open one that made it to evaluated, each
	// counted once at k = 11 with its verdict; the held episodes (k = 5)
	// were never evaluated.
	want := curriculumCount{}
	for _, a := range acked {
		want.add(a.success)
	}
	for id := range opened { // open when killed: resumed, or evaluated if only the answer was lost
		if lostIDs[id] || stateOf(t, fresh.url, id) != "evaluated" {
			continue
		}
		want.add(evaluatedOutcome(t, fresh.url, id))
	}
	require.Positive(t, want.successes, "some acknowledged episodes succeeded")
	require.Less(t, want.successes, want.episodes, "some acknowledged episodes failed")
	assert.Equal(t, map[int]curriculumCount{11: want}, curriculumCounts(t, fresh.url),
		"the curriculum holds exactly the acknowledged (and recovered) outcomes")
	fmt.Fprintf(os.Stderr, "kill -9: %d acknowledged outcomes kept, %d held episodes resumed\n", len(acked), len(held.Episodes))

	newPID := fresh.cmd.Process.Pid
	require.NoError(t, fresh.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, fresh.cmd.Wait(), "%s", fresh.stderr)
	assert.Empty(t, ownedBy(t, rt, newPID), "a drained server leaves nothing")
}

// stateOf is an episode's state on the server at url.
func stateOf(t *testing.T, url, id string) string {
	t.Helper()
	var rec struct{ State string }
	resp, err := http.Get(url + "/v1/episodes/" + id)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rec))
	return rec.State
}

// evaluatedOutcome requires the episode to be evaluated on the server at
// url and returns its verdict.
func evaluatedOutcome(t *testing.T, url, id string) bool {
	t.Helper()
	var rec struct {
		State   string
		Outcome *struct{ Success bool }
	}
	resp, err := http.Get(url + "/v1/episodes/" + id)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rec))
	require.Equal(t, "evaluated", rec.State, id)
	require.NotNil(t, rec.Outcome, id)
	return rec.Outcome.Success
}

// curriculumCount is one checkpoint's episodes and successes.
type curriculumCount struct{ episodes, successes int }

func (c *curriculumCount) add(success bool) {
	c.episodes++
	if success {
		c.successes++
	}
}

// curriculumCounts reads the first task's per-checkpoint counters from a
// running server.
func curriculumCounts(t *testing.T, url string) map[int]curriculumCount {
	t.Helper()
	var cur struct {
		Tasks []struct {
			Checkpoints []struct{ K, Episodes, Successes int }
		}
	}
	resp, err := http.Get(url + "/v1/curriculum")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&cur))
	require.Len(t, cur.Tasks, 1)
	out := map[int]curriculumCount{}
	for _, c := range cur.Tasks[0].Checkpoints {
		out[c.K] = curriculumCount{episodes: c.Episodes, successes: c.Successes}
	}
	return out
}
