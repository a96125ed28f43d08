package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// BenchmarkIntegrationColdReplayProcess compares whole processes from a
// cold start, each leaving nothing behind: `rbx replay --to 10` (process
// start, create and start a container, replay 10 trivial steps, remove it)
// against the docker CLI's `docker run` + 10 × `docker exec` + `docker rm`
// (scripts/bench-cli.sh cold; skipped when no docker CLI is on PATH). The
// two alternate; medians of n runs each. Run with -benchtime 1x.
func BenchmarkIntegrationColdReplayProcess(b *testing.B) {
	const k, n, image = 10, 8, "rbx/busybox:latest"
	rt := dockertest.Runtime(b, image)
	bin := buildRBX(b)
	id := fmt.Sprintf("bench-cold-process-%d", time.Now().UnixNano())
	dir := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "task.yaml"),
		[]byte("id: "+id+"\ninstruction: bench\nimage: "+image+"\nverify: {command: \"true\"}\n"), 0o644))
	steps := strings.TrimSuffix(strings.Repeat(`{"action": "shell", "command": "true"},`, k), ",")
	traj := filepath.Join(dir, "t.json")
	require.NoError(b, os.WriteFile(traj, []byte(`{"id": "bench", "task": "task.yaml", "steps": [`+steps+`]}`), 0o644))
	replay := func() time.Duration {
		start := time.Now()
		out, err := exec.Command(bin, "replay", traj, "--to", strconv.Itoa(k), "--runtime", "docker").CombinedOutput()
		d := time.Since(start)
		require.NoError(b, err, "%s", out)
		return d
	}
	replay() // warm the binary and image caches, untimed
	cliErr := cliOnPath()
	for i := 0; i < b.N; i++ {
		var rbx, cli []time.Duration
		for j := 0; j < n; j++ {
			rbx = append(rbx, replay())
			if cliErr == nil {
				cli = append(cli, cliCold(b, image, k))
			}
		}
		left, err := rt.List(context.Background(), map[string]string{sandbox.LabelTask: id})
		require.NoError(b, err)
		require.Empty(b, left, "rbx replay left containers")
		fmt.Printf("\nwhole-process cold reset to k=%d, nothing left afterwards (median of %d)\n", k, n)
		fmt.Printf("%-52s %9.0f ms\n", "rbx replay --to 10 (process, create, replay, remove)", msOf(median(rbx)))
		b.ReportMetric(msOf(median(rbx)), "rbx-ms")
		if cliErr != nil {
			fmt.Printf("docker CLI row skipped: %v\n", cliErr)
			continue
		}
		fmt.Printf("%-52s %9.0f ms\n", "docker run + 10 x docker exec + docker rm -f", msOf(median(cli)))
		fmt.Printf("rbx is %.1fx faster\n", float64(median(cli))/float64(median(rbx)))
		b.ReportMetric(msOf(median(cli)), "cli-ms")
	}
}

// cliOnPath is nil when the docker CLI, measured as a baseline only, is on
// PATH.
func cliOnPath() error {
	if _, err := exec.LookPath("docker"); err != nil {
		return fmt.Errorf("no docker CLI on PATH (%w)", err)
	}
	return nil
}

// cliCold runs scripts/bench-cli.sh in cold mode once.
func cliCold(b *testing.B, image string, k int) time.Duration {
	b.Helper()
	out, err := exec.Command("../../scripts/bench-cli.sh", image, strconv.Itoa(k), "cold").Output()
	require.NoError(b, err)
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	require.NoError(b, err, "bench-cli.sh printed %q", out)
	return time.Duration(v * float64(time.Millisecond))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
