package server_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProcStatus(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantName string
		wantRSS  int64
		wantErr  string
	}{
		{name: "process", in: "Name:\tcontainerd-shim\nUmask:\t0022\nVmRSS:\t   13464 kB\nThreads:\t11\n", wantName: "containerd-shim", wantRSS: 13464 << 10},
		{name: "kernel thread has no VmRSS", in: "Name:\tkworker/0:1\nState:\tI (idle)\n", wantName: "kworker/0:1"},
		{name: "bad unit", in: "Name:\tx\nVmRSS:\t12 MB\n", wantErr: "want <n> kB"},
		{name: "bad number", in: "Name:\tx\nVmRSS:\tlots kB\n", wantErr: "want <n> kB"},
		{name: "no name", in: "VmRSS:\t1 kB\n", wantErr: "no Name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name, rss, err := procStatus([]byte(tc.in))
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantName, name)
			assert.Equal(t, tc.wantRSS, rss)
		})
	}
}

func TestReadMemSumsShimsAndServer(t *testing.T) {
	root := t.TempDir()
	for pid, status := range map[string]string{
		"10":   "Name:\tcontainerd-shim\nVmRSS:\t1000 kB\n",
		"11":   "Name:\tcontainerd-shim-runc-v2\nVmRSS:\t500 kB\n",
		"12":   "Name:\tdockerd\nVmRSS:\t90000 kB\n",
		"42":   "Name:\trbx\nVmRSS:\t2000 kB\n",
		"43":   "Name:\tkthreadd\n",
		"self": "Name:\tignored\nVmRSS:\t1 kB\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, pid), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, pid, "status"), []byte(status), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "99"), 0o755)) // exited: no status
	m, err := readMem(root, 42)
	require.NoError(t, err)
	assert.Equal(t, memSample{Total: 3500 << 10, RBX: 2000 << 10, Shims: 2, Server: true}, m)
}

func TestQuantile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{name: "empty", in: nil, p: .5, want: 0},
		{name: "one", in: ms(7), p: .99, want: 7 * time.Millisecond},
		{name: "median of unsorted", in: ms(5, 1, 3), p: .5, want: 3 * time.Millisecond},
		{name: "p99 of 100 is the largest but one", in: ms(seq(100)...), p: .99, want: 99 * time.Millisecond},
		{name: "p0 is the smallest", in: ms(4, 2, 9), p: 0, want: 2 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, q(tc.in, tc.p))
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
