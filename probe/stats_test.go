package probe_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestWilson(t *testing.T) {
	tests := []struct {
		s, n   int
		lo, hi float64
	}{
		{0, 8, 0, 0.3244},
		{8, 8, 0.6756, 1},
		{8, 16, 0.2800, 0.7200},
		{2, 16, 0.0350, 0.3604},
		{0, 0, 0, 1},
	}
	for _, tt := range tests {
		lo, hi := probe.Wilson(tt.s, tt.n, 1.959964)
		assert.InDelta(t, tt.lo, lo, 1e-3, "%d/%d low", tt.s, tt.n)
		assert.InDelta(t, tt.hi, hi, 1e-3, "%d/%d high", tt.s, tt.n)
	}
}

func TestFindBottleneck(t *testing.T) {
	pts := func(ps ...float64) []probe.Point {
		out := make([]probe.Point, len(ps))
		for i, p := range ps {
			out[i] = probe.Point{K: i, PHat: p, N: 8}
		}
		return out
	}
	assert.Equal(t, 2, probe.FindBottleneck(pts(0, 0.1, 0.2, 1, 1), 0.5), "the last one below θ, scanning from the end")
	assert.Equal(t, 3, probe.FindBottleneck(pts(1, 0.1, 1, 0.4, 1), 0.5), "a dip near the end wins over an earlier one")
	assert.Equal(t, -1, probe.FindBottleneck(pts(1, 0.5, 1), 0.5), "p̂ = θ is not below θ")
	unknown := pts(0, 1)
	unknown = append(unknown, probe.Point{K: 2, Errors: 3})
	assert.Equal(t, 0, probe.FindBottleneck(unknown, 0.5), "no verdict: skipped")
}

func TestParseCheckpoints(t *testing.T) {
	no := false
	tr := &trajectory.Trajectory{ID: "t", Steps: make([]trajectory.Step, 10)}
	tr.Steps[4].Checkpoint = &no // k = 5 is not valid
	tests := []struct {
		spec string
		want []int
		err  bool
	}{
		{spec: "all", want: []int{0, 1, 2, 3, 4, 6, 7, 8, 9}},
		{spec: "every:3", want: []int{0, 3, 7}},
		{spec: "0,2-4,10", want: []int{0, 2, 3, 4, 10}},
		{spec: "5", err: true},
		{spec: "every:0", err: true},
		{spec: "3-1", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			sel, err := probe.ParseCheckpoints(tt.spec)
			if err == nil {
				var ks []int
				ks, err = sel.Resolve(tr)
				if !tt.err {
					require.NoError(t, err)
					assert.Equal(t, tt.want, ks)
				}
			}
			if tt.err {
				assert.ErrorIs(t, err, probe.ErrCheckpoints)
			}
		})
	}
}

func TestTableAndChart(t *testing.T) {
	res := &probe.Result{Task: "t", Trajectory: "t-ref", Policy: "noisy", Mode: "sweep", T: 3, Rollouts: 8, Threshold: 0.5,
		Confidence: 0.95, Candidates: 3, SweepRollouts: 24, TotalRollouts: 24, Rounds: [][]int{{0, 1, 2}},
		Points: []probe.Point{
			{K: 0, Summary: "shell ls", N: 8, Successes: 1, PHat: 0.125, Lo: 0.02, Hi: 0.47},
			{K: 1, Summary: "write_file run.sh", N: 8, PHat: 0, Lo: 0, Hi: 0.32},
			{K: 2, Summary: "shell ./run.sh", N: 8, Successes: 8, PHat: 1, Lo: 0.68, Hi: 1},
		}}
	res.Bottleneck = &probe.Bottleneck{Point: res.Points[1], Confident: true}
	var out bytes.Buffer
	require.NoError(t, probe.WriteTable(&out, res))
	text := out.String()
	assert.Contains(t, text, "write_file run.sh")
	assert.Contains(t, text, "◀ bottleneck")
	assert.Contains(t, text, "bottleneck: k=1, step 1 write_file run.sh")
	assert.Contains(t, text, "24 rollouts at 3 checkpoints")
	assert.Contains(t, text, strings.Repeat("█", 20))

	dir := t.TempDir()
	for _, name := range []string{"p.png", "p.svg"} {
		path := filepath.Join(dir, name)
		require.NoError(t, probe.WriteChart(path, res))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		if name == "p.png" {
			assert.Equal(t, "\x89PNG", string(data[:4]))
		} else {
			assert.Contains(t, string(data), "<svg")
		}
	}
	assert.Error(t, probe.WriteChart(filepath.Join(dir, "p.gif"), res))
}
