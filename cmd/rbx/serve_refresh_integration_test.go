package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// get decodes a 200 answer of GET url into out and returns the status.
func get(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && out != nil {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	return resp.StatusCode
}

// refreshEpisode is the part of a reset's episode the test reads.
type refreshEpisode struct {
	ID         string
	K, T       int
	RefVersion int `json:"reference_version"`
	Messages   []json.RawMessage
}

type refreshReset struct {
	K, T     int
	Purpose  string
	Episodes []refreshEpisode
}

type refreshCurriculum struct {
	Tasks []struct {
		K, T        int
		Version     int `json:"reference_version"`
		Checkpoints []struct{ K, Episodes, Successes int }
	}
}

// play steps an episode with shell commands and evaluates it.
func play(t *testing.T, url, id string, cmds ...string) (res struct {
	Success, Observed  bool
	ReferenceVersion   int  `json:"reference_version"`
	ReferenceCandidate bool `json:"reference_candidate"`
}) {
	t.Helper()
	for _, c := range cmds {
		require.Equal(t, http.StatusOK, post(url+"/v1/episodes/"+id+"/step",
			map[string]any{"tool_call": map[string]any{"name": "shell", "arguments": map[string]any{"command": c}}}, nil), c)
	}
	require.Equal(t, http.StatusOK, post(url+"/v1/episodes/"+id+"/evaluate", nil, &res))
	return res
}

// TestIntegrationServeReferenceRefresh: `rbx serve --refresh-references`
// on Docker. The task's reference takes six steps where two suffice; an
// episode from k = 0 solves it in two actions, passes two fresh-sandbox
// checks and becomes version 2. The Sequential curriculum, at k = 5 of
// version 1, continues at min(5, T'−1) = 1 of version 2 with checkpoint
// 0's statistics kept; resets use version 2's T and prefix; an episode
// open on version 1 evaluates against it without feeding the curriculum;
// version 1 stays retrievable; a restart serves version 2.
func TestIntegrationServeReferenceRefresh(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.CopyFS(filepath.Join(tasks, "redundant"), os.DirFS("../../server/testdata/redundant")))
	args := []string{"--tasks", tasks, "--runtime", "docker", "--state", filepath.Join(dir, "state.db"), "--pool", "1",
		"--strategy", "sequential", "--refresh-references", "--refresh-repeats", "2"}
	srv := startServe(t, rt, bin, args...)

	var rr refreshReset
	require.Equal(t, http.StatusOK, post(srv.url+"/v1/reset", map[string]any{"task": "redundant"}, &rr))
	require.Equal(t, 5, rr.K, "Sequential starts at T−1")
	require.Equal(t, 6, rr.T)
	open := rr.Episodes[0] // stays open on version 1 across the adoption

	require.Equal(t, http.StatusOK, post(srv.url+"/v1/reset", map[string]any{"task": "redundant", "checkpoint": 0, "feed_curriculum": true}, &rr))
	short := play(t, srv.url, rr.Episodes[0].ID, "echo done > out.txt", "cat out.txt")
	require.True(t, short.Success)
	require.True(t, short.ReferenceCandidate, "2 actions from k = 0 against a suffix of 6")

	var refs struct {
		Current    int
		Versions   []struct{ Version, Parent, K, T int }
		Candidates []struct{ Episode, Result, Reason, Detail string }
	}
	require.Eventually(t, func() bool {
		return get(t, srv.url+"/v1/tasks/redundant/references", &refs) == http.StatusOK && (refs.Current == 2 ||
			len(refs.Candidates) > 0 && refs.Candidates[len(refs.Candidates)-1].Result == "rejected")
	}, 3*time.Minute, 200*time.Millisecond)
	require.Equal(t, 2, refs.Current, "candidate events: %+v\n%s", refs.Candidates, srv.stderr)
	require.Len(t, refs.Versions, 2)
	assert.Equal(t, struct{ Version, Parent, K, T int }{2, 1, 0, 2}, refs.Versions[1])

	// The curriculum continues on version 2 by the documented rule.
	var cur refreshCurriculum
	require.Equal(t, http.StatusOK, get(t, srv.url+"/v1/curriculum?task=redundant", &cur))
	require.Len(t, cur.Tasks, 1)
	assert.Equal(t, 2, cur.Tasks[0].Version)
	assert.Equal(t, 2, cur.Tasks[0].T)
	assert.Equal(t, 1, cur.Tasks[0].K, "position 5 moves to min(5, T'−1) = 1")
	require.Len(t, cur.Tasks[0].Checkpoints, 1, "only checkpoint 0 (kept) has statistics")
	assert.Equal(t, 0, cur.Tasks[0].Checkpoints[0].K)
	assert.Equal(t, 1, cur.Tasks[0].Checkpoints[0].Successes)

	require.Equal(t, http.StatusOK, post(srv.url+"/v1/reset", map[string]any{"task": "redundant"}, &rr))
	assert.Equal(t, 1, rr.K)
	assert.Equal(t, 2, rr.T)
	next := rr.Episodes[0]
	assert.Equal(t, 2, next.RefVersion)
	var prefix strings.Builder
	for _, m := range next.Messages {
		prefix.Write(m)
	}
	assert.Contains(t, prefix.String(), `echo done \\u003e out.txt`, "version 2's step 0 in the prefix")
	assert.NotContains(t, prefix.String(), "draft", "nothing of version 1's steps")
	res := play(t, srv.url, next.ID, "cat out.txt")
	assert.True(t, res.Success)
	assert.True(t, res.Observed)

	// The episode open on version 1 at k = 5, a state version 2 lacks.
	res = play(t, srv.url, open.ID, "echo done > out.txt")
	assert.True(t, res.Success)
	assert.Equal(t, 1, res.ReferenceVersion)
	assert.False(t, res.Observed, "its outcome belongs to version 1's checkpoint 5")

	var v1 struct{ Steps []struct{ Command string } }
	require.Equal(t, http.StatusOK, get(t, srv.url+"/v1/tasks/redundant/references/1", &v1))
	assert.Len(t, v1.Steps, 6)

	// A restart on the same state serves version 2 and resumes the curriculum.
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, srv.cmd.Wait(), "%s", srv.stderr)
	again := startServe(t, rt, bin, args...)
	require.Equal(t, http.StatusOK, get(t, again.url+"/v1/tasks/redundant/references", &refs))
	assert.Equal(t, 2, refs.Current)
	require.Equal(t, http.StatusOK, get(t, again.url+"/v1/curriculum?task=redundant", &cur))
	assert.Equal(t, 2, cur.Tasks[0].Version)
	assert.Equal(t, 1, cur.Tasks[0].K)
	require.Equal(t, http.StatusOK, post(again.url+"/v1/reset", map[string]any{"task": "redundant"}, &rr))
	assert.Equal(t, 2, rr.T)
	assert.Equal(t, 1, rr.K)
}
