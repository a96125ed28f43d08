package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// redundant loads testdata/redundant: a reference of six steps where two suffice.
func redundant(t testing.TB) server.Entry {
	t.Helper()
	tk, err := task.Load(filepath.Join("testdata", "redundant", "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join("testdata", "redundant", "trajectory.json"))
	require.NoError(t, err)
	return server.Entry{Task: tk, Ref: trs[0]}
}

func shell(cmd string) map[string]any {
	return map[string]any{"name": "shell", "arguments": map[string]any{"command": cmd}}
}

// references lists a task's reference versions.
func (h *harness) references(task string) server.ReferencesResponse {
	h.t.Helper()
	var rr server.ReferencesResponse
	code, raw := h.call("GET", "/v1/tasks/"+task+"/references", nil, &rr)
	require.Equal(h.t, http.StatusOK, code, "%s", raw)
	return rr
}

// waitCandidate waits until the task's candidate events hold one with result.
func (h *harness) waitCandidate(task, episode, result string) server.CandidateEvent {
	h.t.Helper()
	var found server.CandidateEvent
	require.Eventually(h.t, func() bool {
		for _, ev := range h.references(task).Candidates {
			if ev.Episode == episode && ev.Result == result {
				found = ev
				return true
			}
		}
		return false
	}, 60*time.Second, 20*time.Millisecond, "candidate %s never %s: %+v", episode, result, h.references(task).Candidates)
	return found
}

// TestReferenceRefresh (local runtime): a successful episode from k = 0
// with two actions replaces the six-step reference after two checks; the
// next resets use version 2, an episode open on version 1 evaluates
// against version 1 without feeding the curriculum, off-policy and
// longer episodes are no candidates, a candidate that does not replay is
// rejected with the prefilter's reason, and a restart serves version 2.
func TestReferenceRefresh(t *testing.T) {
	e := redundant(t)
	rt, err := local.New()
	require.NoError(t, err)
	state := filepath.Join(t.TempDir(), "state.db")
	h := newHarness(t, rt, []server.Entry{e}, server.WithReferenceRefresh(rt, 2), server.WithJournal(state))

	open := h.resetFed("redundant", 5) // stays open on version 1 across the adoption
	iv := h.reset("redundant", 0)      // intervened: off-policy, no candidate
	h.step(iv.ID, shell("echo done > out.txt"), true)
	assert.False(t, h.evaluate(iv.ID).ReferenceCandidate, "an intervened episode is off-policy")
	long := h.reset("redundant", 3) // as long as the reference's suffix: no candidate
	for _, c := range []string{"true", "echo done > out.txt", "true"} {
		h.step(long.ID, shell(c), false)
	}
	res := h.evaluate(long.ID)
	require.True(t, res.Success)
	assert.False(t, res.ReferenceCandidate, "3 actions from k = 3 are not fewer than the suffix's 3")

	ep := h.reset("redundant", 0)
	h.step(ep.ID, shell("echo done > out.txt"), false)
	h.step(ep.ID, shell("cat out.txt"), false)
	res = h.evaluate(ep.ID)
	require.True(t, res.Success)
	assert.True(t, res.ReferenceCandidate)
	assert.Equal(t, 1, res.ReferenceVersion)
	adopted := h.waitCandidate("redundant", ep.ID, server.CandidateAdopted)
	assert.Equal(t, 2, adopted.Version)

	refs := h.references("redundant")
	assert.Equal(t, 2, refs.Current)
	require.Len(t, refs.Versions, 2)
	assert.Equal(t, server.RefVersion{Task: "redundant", Version: 2, Parent: 1, K: 0, Episode: ep.ID, ID: "redundant.v2", T: 2,
		Adopted: refs.Versions[1].Adopted, Current: true}, refs.Versions[1])
	assert.Equal(t, 6, refs.Versions[0].T)
	var results []string
	for _, ev := range refs.Candidates {
		if ev.Episode == ep.ID {
			results = append(results, ev.Result)
		}
	}
	assert.Equal(t, []string{"seen", "verified", "adopted"}, results)

	// Version 1 stays retrievable; version 2 is the episode's actions.
	var v1, v2 trajectory.Trajectory
	code, raw := h.call("GET", "/v1/tasks/redundant/references/1", nil, &v1)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, 6, v1.Len())
	code, raw = h.call("GET", "/v1/tasks/redundant/references/2", nil, &v2)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Equal(t, 2, v2.Len())
	assert.Equal(t, "echo done > out.txt", v2.Steps[0].Command)
	code, raw = h.call("GET", "/v1/tasks/redundant/references/3", nil, nil)
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, server.CodeUnknownVersion, errorCode(t, raw))

	// Resets use version 2: T = 2 and its prefix.
	var rr server.ResetResponse
	code, raw = h.call("POST", "/v1/reset", map[string]any{"task": "redundant", "checkpoint": 1, "feed_curriculum": true}, &rr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, 2, rr.T)
	next := rr.Episodes[0]
	assert.Equal(t, 2, next.RefVersion)
	prefix := joined(next.Messages)
	assert.Contains(t, prefix, `echo done \\u003e out.txt`, "version 2's step 0")
	assert.NotContains(t, prefix, "draft")
	h.step(next.ID, shell("cat out.txt"), false)
	res = h.evaluate(next.ID)
	assert.True(t, res.Success)
	assert.True(t, res.Observed)
	code, raw = h.call("POST", "/v1/reset", map[string]any{"task": "redundant", "checkpoint": 4}, nil)
	assert.Equal(t, http.StatusBadRequest, code, "k = 4 is beyond version 2: %s", raw)

	// The episode open on version 1 at k = 5 (a state version 2 lacks)
	// evaluates against version 1 and does not feed the curriculum.
	h.step(open.ID, shell("echo done > out.txt"), false)
	res = h.evaluate(open.ID)
	assert.True(t, res.Success)
	assert.Equal(t, 1, res.ReferenceVersion)
	assert.False(t, res.Observed)
	assert.False(t, res.ReferenceCandidate, "one action is not fewer than version 1's suffix from 5")
	var exp trajectory.Trajectory
	code, raw = h.call("GET", "/v1/episodes/"+open.ID+"/trajectory", nil, &exp)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, 6, exp.Len(), "version 1's prefix of 5 steps and one action")

	var cs struct{ Tasks []curriculum.Status }
	code, raw = h.call("GET", "/v1/curriculum?task=redundant", nil, &cs)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, cs.Tasks, 1)
	assert.Equal(t, 2, cs.Tasks[0].Version)
	assert.Equal(t, 2, cs.Tasks[0].T)
	for _, c := range cs.Tasks[0].Checkpoints {
		assert.Less(t, c.K, 2)
	}

	// A candidate whose output changes between runs does not replay.
	bad := h.reset("redundant", 0)
	h.step(bad.ID, shell("cat /proc/sys/kernel/random/uuid; echo done > out.txt"), false)
	require.True(t, h.evaluate(bad.ID).ReferenceCandidate)
	rej := h.waitCandidate("redundant", bad.ID, server.CandidateRejected)
	assert.Equal(t, reason.Output, rej.Reason, rej.Detail)
	assert.Equal(t, 2, h.references("redundant").Current)

	code, raw = h.call("GET", "/metrics", nil, nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(raw), `rbx_serve_reference_candidates_total{result="adopted",task="redundant"} 1`)
	assert.Contains(t, string(raw), `rbx_serve_reference_rejections_total{reason="output",task="redundant"} 1`)

	// A restart on the same state serves version 2 (the curriculum, here
	// a new one in memory, is rebased to it).
	require.NoError(t, h.srv.Close(t.Context()))
	h2 := newHarness(t, rt, []server.Entry{redundant(t)}, server.WithJournal(state))
	refs = h2.references("redundant")
	assert.Equal(t, 2, refs.Current)
	assert.False(t, refs.Refresh)
	var ts server.TaskSummary
	code, raw = h2.call("GET", "/v1/tasks/redundant", nil, &ts)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, 2, ts.T)
	assert.Equal(t, 2, ts.ReferenceVersion)
	assert.Equal(t, 2, ts.Curriculum.Version)
}

func joined(msgs []json.RawMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintln(&b, string(m))
	}
	return b.String()
}

// TestReferenceRefreshFromK: an episode from k = 2 that beats the suffix
// yields ref[0,2) + its action; outcomes of version-1 episodes at k ≤ 2
// (the same states) still feed the curriculum, later ones do not.
func TestReferenceRefreshFromK(t *testing.T) {
	e := redundant(t)
	rt, err := local.New()
	require.NoError(t, err)
	h := newHarness(t, rt, []server.Entry{e}, server.WithReferenceRefresh(rt, 1))
	before, after := h.resetFed("redundant", 1), h.resetFed("redundant", 4) // open on version 1

	ep := h.reset("redundant", 2)
	h.step(ep.ID, shell("echo done > out.txt"), false)
	require.True(t, h.evaluate(ep.ID).ReferenceCandidate)
	h.waitCandidate("redundant", ep.ID, server.CandidateAdopted)

	var v2 trajectory.Trajectory
	code, raw := h.call("GET", "/v1/tasks/redundant/references/2", nil, &v2)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Equal(t, 3, v2.Len())
	assert.Equal(t, e.Ref.Steps[:2], v2.Steps[:2], "the prefix is version 1's")
	assert.Equal(t, "echo done > out.txt", v2.Steps[2].Command)
	assert.Equal(t, 2, h.references("redundant").Versions[1].K)

	h.step(before.ID, shell("echo done > out.txt"), false)
	res := h.evaluate(before.ID)
	assert.Equal(t, 1, res.ReferenceVersion)
	assert.True(t, res.Observed, "k = 1 is the same state in version 2")
	require.True(t, res.ReferenceCandidate, "1 action against version 1's suffix of 5")
	stale := h.waitCandidate("redundant", before.ID, server.CandidateRejected)
	assert.Equal(t, reason.Stale, stale.Reason, "built on version 1, the reference is version 2")
	h.step(after.ID, shell("echo done > out.txt"), false)
	assert.False(t, h.evaluate(after.ID).Observed, "k = 4 of version 1 is gone")
}
