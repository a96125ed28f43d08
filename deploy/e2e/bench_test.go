package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkIntegrationDeployedServe measures what the one replica of the
// deployment does on the test cluster: episodes of the three examples
// (reset at the curriculum's k, the reference's remaining actions,
// evaluate) through the Service at growing concurrency, with the rbx serve
// process's CPU time per episode read from the node's /proc (the test
// cluster's node is this machine), and how many episodes it holds open at
// once under its budget (--max-sandboxes 12 in the e2e overlay).
func BenchmarkIntegrationDeployedServe(b *testing.B) {
	d := deploy(b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	allSucceeded(b, d.p.play(ctx, exampleTasks, 2, 3), 6) // pools warm, references cached
	fmt.Printf("\n%-12s %9s %9s %12s %14s\n", "concurrency", "episodes", "wall s", "episodes/s", "serve CPU ms/ep")
	for _, conc := range []int{1, 4, 8} {
		n := 4 * conc
		if n < 6 {
			n = 6
		}
		cpu0 := serveCPU(b)
		t0 := time.Now()
		out := d.p.play(ctx, exampleTasks, n/len(exampleTasks), conc)
		wall := time.Since(t0)
		cpu := serveCPU(b) - cpu0
		allSucceeded(b, out, n/len(exampleTasks)*len(exampleTasks))
		eps := float64(len(out)) / wall.Seconds()
		fmt.Printf("%-12d %9d %9.1f %12.2f %14.1f\n", conc, len(out), wall.Seconds(), eps, float64(cpu.Milliseconds())/float64(len(out)))
		b.ReportMetric(eps, fmt.Sprintf("episodes/s@%d", conc))
	}

	// Open episodes: the budget's worth held open at once, each reset
	// timed; then all evaluated.
	// Fewer than the budget: the warm pools of the three classes hold
	// slots of their own while they refill.
	const open = 8
	type held struct {
		id  string
		dur time.Duration
	}
	res := make(chan held, open)
	errs := make(chan error, open)
	for i := range open {
		go func() {
			t0 := time.Now()
			ep, _, err := d.p.open(ctx, exampleTasks[i%len(exampleTasks)], 1)
			if err != nil {
				errs <- err
				return
			}
			res <- held{ep.ID, time.Since(t0)}
		}()
	}
	var durs []time.Duration
	var ids []string
	for range open {
		select {
		case err := <-errs:
			require.NoError(b, err)
		case h := <-res:
			ids, durs = append(ids, h.id), append(durs, h.dur)
		}
	}
	var health struct {
		Open int `json:"open_episodes"`
	}
	require.NoError(b, d.p.getJSON(ctx, "/healthz", &health))
	slices.Sort(durs)
	fmt.Printf("\n%d episodes open at once (server reports %d): reset + 1 step p50 %v, max %v\n",
		open, health.Open, durs[len(durs)/2].Round(time.Millisecond), durs[len(durs)-1].Round(time.Millisecond))
	for _, id := range ids {
		require.NoError(b, d.p.c.Close(ctx, id))
	}
}

// serveCPU is the user + system CPU time of the rbx serve process of the
// deployment, read from /proc on this machine (the test cluster's node).
func serveCPU(b *testing.B) time.Duration {
	b.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(b, err)
	for _, f := range dirs {
		c, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(c), "serve\x00--runtime=kubernetes") || !strings.Contains(string(c), "--tasks=/etc/rbx/tasks") {
			continue
		}
		st, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat"))
		require.NoError(b, err)
		fields := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		ut, _ := strconv.ParseInt(fields[11], 10, 64) // field 14, utime
		sys, _ := strconv.ParseInt(fields[12], 10, 64)
		return time.Duration(ut+sys) * (time.Second / 100) // USER_HZ
	}
	b.Fatal("no rbx serve process of the deployment on this node")
	return 0
}
