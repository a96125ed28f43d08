package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegrationReplayKeepThenVerify: replay --keep --output json leaves a
// running sandbox whose id verify --sandbox accepts; the verdict depends on
// how far the replay went.
func TestIntegrationReplayKeepThenVerify(t *testing.T) {
	rt := dockerOrSkip(t)
	const traj, tk = "../../examples/run-sh-path/trajectory.json", "../../examples/run-sh-path/task.yaml"
	tests := []struct {
		to   string
		want int
	}{{"12", exitOK}, {"5", exitVerifyFail}}
	for _, tc := range tests {
		t.Run("to="+tc.to, func(t *testing.T) {
			var out, errOut bytes.Buffer
			s := Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
			code := Run(context.Background(), []string{"replay", traj, "--to", tc.to, "--keep", "--output", "json", "--runtime", "docker"}, s)
			var res replayResult
			require.NoError(t, json.Unmarshal(out.Bytes(), &res), "stdout is one JSON document: %s", out.String())
			t.Cleanup(func() { _ = rt.Remove(context.Background(), res.Sandbox) })
			require.Equal(t, exitOK, code, errOut.String())
			assert.True(t, res.Kept)
			assert.Contains(t, res.Enter, "docker exec -it ")
			require.NotNil(t, res.Report)
			assert.Nil(t, res.Report.Divergence)
			assert.Len(t, res.Report.Steps, res.Report.To)

			out.Reset()
			code = Run(context.Background(), []string{"verify", tk, "--sandbox", res.Sandbox, "--runtime", "docker"}, s)
			assert.Equal(t, tc.want, code, errOut.String())
			assert.Contains(t, out.String(), "verifier ")
		})
	}
}
