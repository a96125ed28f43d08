package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runRbx(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Streams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestSimulateCommand(t *testing.T) {
	code, out, _ := runRbx(t, "simulate", "--n", "8", "--p", "0.5", "--m", "4", "--strategy", "all", "--seeds", "50")
	require.Equal(t, exitOK, code)
	for _, want := range []string{"baseline", "sequential", "heuristic", "parallel", "search-learn", "n·pⁿ⁻¹ (1/16)"} {
		assert.Contains(t, out, want)
	}

	png := filepath.Join(t.TempDir(), "r.png")
	code, out, _ = runRbx(t, "simulate", "--p", "0.9", "--hard", "1", "--hard-p", "0.1", "--seeds", "50", "--output", "json", "--plot", png)
	require.Equal(t, exitOK, code)
	var res simulateResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Len(t, res.Results, 5)
	assert.Contains(t, res.Findings[0], "search-learn ≤ heuristic < sequential holds")
	assert.Contains(t, res.Findings[1], "heuristic needs fewer")
	for _, r := range res.Results[1:] {
		assert.Positive(t, r.Moves, r.Strategy)
	}
	info, err := os.Stat(png)
	require.NoError(t, err)
	assert.Positive(t, info.Size())

	// The decision line names the learnt s_min's parameters, and drops them
	// when learning is off.
	code, out, _ = runRbx(t, "simulate", "--strategy", "sequential", "--seeds", "20", "--min-successes-floor", "2", "--learn-alpha", "0.01")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "later down to ≥ 2 as learnt from the checkpoints left at error rate 0.01")
	code, out, _ = runRbx(t, "simulate", "--strategy", "sequential", "--seeds", "20", "--learn-alpha", "0", "--output", "json")
	require.Equal(t, exitOK, code)
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, 0.0, res.Params["learn_alpha"])
	code, out, _ = runRbx(t, "simulate", "--strategy", "sequential", "--seeds", "20", "--learn-alpha", "0")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "later down")

	for _, bad := range [][]string{{"--strategy", "nope"}, {"--p", "0"}, {"--hard", "9"}, {"--output", "xml"}, {"--learn-alpha", "0.5"}, {"--min-successes-floor", "0"}} {
		code, _, _ := runRbx(t, append([]string{"simulate"}, bad...)...)
		assert.Equal(t, exitUsage, code, bad)
	}
}

// A sweep: every combination of --n, --p and --m, each strategy next to
// the --versus rule, totals, and the settings skipped for their baseline.
func TestSimulateSweep(t *testing.T) {
	code, out, errOut := runRbx(t, "simulate", "--strategy", "sequential", "--seeds", "40", "--n", "4,6", "--p", "0.5,0.3", "--m", "2,3",
		"--max-episodes", "2000", "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var res sweepResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	// m/pⁿ at (6, 0.3, 2) and (6, 0.3, 3) is above 2000: skipped, and said so.
	require.Len(t, res.Skipped, 2)
	assert.Equal(t, sweepSkip{N: 6, P: 0.3, M: 2, BaselineClosedForm: 2 / math.Pow(0.3, 6)}, res.Skipped[0])
	assert.Contains(t, errOut, "skipped 2 settings")
	require.Len(t, res.Rows, 6)
	within := 0
	for _, r := range res.Rows {
		assert.Equal(t, "sequential", r.Strategy)
		assert.InDelta(t, float64(r.N)*math.Pow(r.P, float64(r.N-1)), r.ClosedFormRatio, 1e-9)
		require.NotNil(t, r.Versus, "the window rule by default")
		if math.Abs(r.Deviation) <= 0.25 {
			within++
		}
	}
	require.Len(t, res.Totals, 1)
	assert.Equal(t, sweepTotal{Strategy: "sequential", Settings: 6, Within: within, VersusWithin: res.Totals[0].VersusWithin}, res.Totals[0])

	code, out, _ = runRbx(t, "simulate", "--strategy", "sequential", "--seeds", "20", "--n", "4", "--p", "0.5", "--m", "2,4", "--versus", "none")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "sequential: within 25% of n·pⁿ⁻¹ at")
	assert.NotContains(t, out, "WINDOW")

	for _, bad := range [][]string{{"--versus", "vote"}, {"--plot", "x.png"}, {"--p", "0.5,0"}, {"--n", "4,65"}, {"--m", "0,2"}, {"--hard", "5"}, {"--tolerance", "0"}} {
		code, _, _ := runRbx(t, append([]string{"simulate", "--n", "4,6", "--seeds", "5"}, bad...)...)
		assert.Equal(t, exitUsage, code, bad)
	}
}
