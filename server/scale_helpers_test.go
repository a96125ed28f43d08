package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/store"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/statedb"
)

// startTimes is how long each stage of a start took, and the process'
// CPU time over the whole start (a figure a loaded machine distorts less).
type startTimes struct {
	discover, state, server time.Duration
	cpu                     time.Duration
}

// cpuTime is the process' user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (s startTimes) total() time.Duration { return s.discover + s.state + s.server }

// corpusDir writes n generated tasks into a temporary directory.
func corpusDir(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	corpustest.Write(t, dir, n)
	return dir
}

// startFrom goes the way `rbx serve` starts: discover the tasks under
// dir, open the state database, build the server (a local runtime, pools
// of 0 sandboxes: nothing is created). The server and database are closed
// at cleanup.
func startFrom(t testing.TB, dir, state string, opts ...server.Option) (*server.Server, startTimes) {
	t.Helper()
	ctx := context.Background()
	var st startTimes
	cpu0, t0 := cpuTime(), time.Now()
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	entries, skipped, err := server.References(items)
	require.NoError(t, err)
	require.Empty(t, skipped)
	st.discover = time.Since(t0)

	t0 = time.Now()
	eng, db, err := store.OpenEngine(ctx, state, nil, curriculum.WithStrategy(curriculum.SearchLearn))
	require.NoError(t, err)
	st.state = time.Since(t0)

	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(0)))
	require.NoError(t, err)
	t0 = time.Now()
	srv, err := server.New(ctx, rs, rp, eng, entries, append(opts, server.WithJournalDB(db.DB()))...)
	t.Cleanup(func() {
		if srv != nil {
			require.NoError(t, srv.Close(ctx))
		}
		require.NoError(t, rs.Close(ctx))
		require.NoError(t, db.Close())
	})
	require.NoError(t, err)
	st.server, st.cpu = time.Since(t0), cpuTime()-cpu0
	return srv, st
}

func statePath(t testing.TB) string { return filepath.Join(t.TempDir(), "state.db") }

// seedState adds per outcomes of each of the first n generated tasks to
// the state database, as a long training run leaves it: curriculum
// outcomes (all at the last checkpoint, so they replay into any
// strategy) and evaluated episodes in the journal, in one transaction.
func seedState(t testing.TB, state string, n, per int) {
	t.Helper()
	ctx := context.Background()
	db, err := statedb.Open(ctx, state)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	at := time.Now().Add(-time.Hour).UnixMilli()
	for i := range n * per {
		task, ok := corpustest.ID(i%n), i%3 != 0
		_, err = tx.ExecContext(ctx, "INSERT INTO outcomes (task, k, success) VALUES (?, 2, ?)", task, ok)
		require.NoError(t, err)
		rec := fmt.Sprintf(`{"id":"ep_%020x","task":%q,"k":2,"state":"evaluated","purpose":"rollback"}`, i, task)
		_, err = tx.ExecContext(ctx, `INSERT INTO serve_episodes (id, task, k, state, created, updated, success, record)
			VALUES (?, ?, 2, 'evaluated', ?, ?, ?, ?)`, fmt.Sprintf("ep_%020x", i), task, at+int64(i), at+int64(i), ok, rec)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.NoError(t, db.Close())
}
