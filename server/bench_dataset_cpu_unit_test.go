package server_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantComm  string
		wantStart string
		wantTicks int64
		wantReap  int64
		wantErr   string
	}{
		{name: "shim", in: "812 (containerd-shim) S 1 812 1 0 -1 4194560 3157 0 0 0 40 21 7 3 20 0 11 0 4099 1 2",
			wantComm: "containerd-shim", wantStart: "4099", wantTicks: 71, wantReap: 10},
		{name: "comm with spaces and parens", in: "9 (a (b) c) R 1 9 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 77 0 0",
			wantComm: "a (b) c", wantStart: "77", wantTicks: 10, wantReap: 7},
		{name: "short", in: "9 (x) R 1 2 3", wantErr: "fields after comm"},
		{name: "no comm", in: "9 x R", wantErr: "no (comm)"},
		{name: "bad number", in: "9 (x) R 1 9 1 0 -1 0 0 0 0 0 a 2 3 4 20 0 1 0 77 0 0", wantErr: "field 14"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comm, start, ticks, reaped, err := parseProcStat(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []any{tc.wantComm, tc.wantStart, tc.wantTicks, tc.wantReap}, []any{comm, start, ticks, reaped})
		})
	}
}

func TestParseBusy(t *testing.T) {
	busy, err := parseBusy("cpu  100 5 50 1000 30 2 3 1 0 0\ncpu0 1 2 3\n")
	require.NoError(t, err)
	assert.Equal(t, int64(161), busy, "all but idle (1000) and iowait (30)")
	_, err = parseBusy("intr 1 2\n")
	require.ErrorContains(t, err, "want cpu")
}

// TestCPUSpent: a process alive at both samples counts its difference, a
// new one all its time, a reused pid all its time, by category.
func TestCPUSpent(t *testing.T) {
	a := cpuSample{busy: 1000, procs: map[int]procCPU{
		9: {category: "dockerd", start: "10", ticks: 500}, 2: {category: "shims", start: "20", ticks: 100}, 3: {category: "other", start: "30", ticks: 50},
	}}
	b := cpuSample{busy: 1600, procs: map[int]procCPU{
		9: {category: "dockerd", start: "10", ticks: 700}, 2: {category: "shims", start: "20", ticks: 150}, 3: {category: "other", start: "99", ticks: 40}, 4: {category: "rbx", start: "40", ticks: 60},
	}}
	busy, by := cpuSpent(a, b)
	assert.InDelta(t, 6.0, busy, 1e-9)
	assert.Equal(t, map[string]float64{"dockerd": 2, "shims": 0.5, "other": 0.4, "rbx": 0.6}, by)

	// init's own time is other; what it reaped (exited shims) is shims.
	a.procs[1] = procCPU{category: "other", start: "1", ticks: 100, reaped: 1000, reapedTo: "shims"}
	b.procs[1] = procCPU{category: "other", start: "1", ticks: 110, reaped: 1300, reapedTo: "shims"}
	_, by = cpuSpent(a, b)
	assert.Equal(t, map[string]float64{"dockerd": 2, "shims": 3.5, "other": 0.5, "rbx": 0.6}, by)
}

// TestReadCPU reads this machine's /proc: the test process is "rbx" when
// named as the server.
func TestReadCPU(t *testing.T) {
	s, err := readCPU("/proc", os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, s.busy)
	require.Contains(t, s.procs, os.Getpid())
	assert.Equal(t, "rbx", s.procs[os.Getpid()].category)
}
