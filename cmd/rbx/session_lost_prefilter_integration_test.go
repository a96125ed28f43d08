package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
)

// TestIntegrationPrefilterSessionLost: a trajectory with a step that ends
// the session shell is rejected with reason session_lost, naming the step,
// in the JSON report and in the table.
func TestIntegrationPrefilterSessionLost(t *testing.T) {
	dockerOrSkip(t, "rbx/debian:bookworm")
	for _, tc := range lostCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeLostTrajectory(t, dir, tc)
			code, stdout, stderr := rbx(t, "prefilter", dir, "--repeats", "1", "--runtime", "docker", "--output", "json")
			require.Equal(t, exitOK, code, stderr)
			var rep prefilter.Report
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
			require.Len(t, rep.Results, 1)
			r := rep.Results[0]
			assert.Equal(t, prefilter.StatusRejected, r.Status, "%+v", r)
			assert.Equal(t, reason.SessionLost, r.Reason, "%+v", r)
			require.NotNil(t, r.Failure)
			require.NotNil(t, r.Failure.Step)
			assert.Equal(t, tc.lost, *r.Failure.Step)
			assert.Equal(t, map[reason.Reason]int{reason.SessionLost: 1}, rep.Summary.ByReason)

			code, stdout, stderr = rbx(t, "prefilter", dir, "--repeats", "1", "--runtime", "docker")
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stdout, string(reason.SessionLost))
		})
	}
}
