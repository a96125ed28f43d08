package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
)

const childEnv = "RBX_CURRICULUM_STORE_CHILD"

// TestKill9KeepsAcknowledgedOutcomes re-executes the test binary as a child
// that streams Observe calls from 4 goroutines (each on its own tasks) and
// prints every acknowledged outcome; the parent SIGKILLs it mid-stream,
// reopens the database, and checks that every acknowledged outcome is
// stored, in order.
//
// A killed process loses nothing the kernel already has, so the replay
// alone cannot tell synchronous=FULL from OFF (only power loss can): the
// child also reports the synchronous setting of the very handle its store
// writes through, and it must be FULL.
func TestKill9KeepsAcknowledgedOutcomes(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		runChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "state.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9KeepsAcknowledgedOutcomes$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	acked := map[string][]string{}
	total := 0
	syncLevel := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), syncLine); ok {
			syncLevel = v
			continue
		}
		var task, rec string
		if _, err := fmt.Sscan(sc.Text(), &task, &rec); err != nil {
			continue // test framework chatter
		}
		acked[task] = append(acked[task], rec)
		if total++; total == 400 {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		}
	}
	err = cmd.Wait()
	require.Error(t, err, "the child must have been killed, not finished")
	require.GreaterOrEqual(t, total, 400)
	require.Equal(t, "2", syncLevel, "PRAGMA synchronous of the store's handle: 2 is FULL (0 OFF, 1 NORMAL)")

	s, err := Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	_, outs, err := s.Load(context.Background())
	require.NoError(t, err)
	stored := map[string][]string{}
	for _, o := range outs {
		stored[o.Task] = append(stored[o.Task], fmt.Sprintf("%d/%t", o.K, o.Success))
	}
	for task, recs := range acked {
		require.GreaterOrEqualf(t, len(stored[task]), len(recs), "task %s: acknowledged outcomes missing", task)
		assert.Equal(t, recs, stored[task][:len(recs)], "task %s", task)
	}
	t.Logf("%d outcomes acknowledged before SIGKILL, %d stored", total, len(outs))
}

// syncLine starts the child's report of its handle's synchronous setting.
const syncLine = "pragma synchronous="

// runChild reports its store handle's synchronous setting, then streams
// outcomes forever; the parent kills it.
func runChild(path string) {
	e, s, err := OpenEngine(context.Background(), path, nil, curriculum.WithStrategy(curriculum.Heuristic))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var level string
	if err := s.DB().QueryRow("PRAGMA synchronous").Scan(&level); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(syncLine + level)
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			ids := []string{fmt.Sprintf("g%d-a", g), fmt.Sprintf("g%d-b", g)}
			for _, id := range ids {
				if err := e.Register(curriculum.TaskInfo{ID: id, T: 10}); err != nil {
					panic(err)
				}
			}
			for i := 0; ; i++ {
				id := ids[i%2]
				k, _, _ := e.Next(id)
				ok := i%3 != 1
				if err := e.Observe(id, k, ok); err != nil {
					panic(err)
				}
				mu.Lock() // acknowledged: say so at once
				fmt.Fprintf(out, "%s %d/%t\n", id, k, ok)
				_ = out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
