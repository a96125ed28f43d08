package recycletest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// BenchEpisode is the work both sides of a recycle benchmark do before
// getting a fresh sandbox back: files in the workdir and /tmp, a directory
// tree, a process left behind.
const BenchEpisode = "echo a > f && mkdir -p .x/.y && echo b > /tmp/t && sleep 1000 >/dev/null 2>&1 & echo ok"

// RunBenchEpisode runs BenchEpisode in sb.
func RunBenchEpisode(b *testing.B, sb sandbox.Sandbox) {
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: BenchEpisode})
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("episode: exit %d: %v", res.ExitCode, err)
	}
}

// benchSide is one side of a benchmark: its spec and current sandbox,
// removed at the benchmark's end.
type benchSide struct {
	spec sandbox.Spec
	sb   sandbox.Sandbox
}

// newBenchSide creates the first sandbox of a side (before its timer
// starts).
func newBenchSide(b *testing.B, rt sandbox.Runtime, img string, recyclable bool) *benchSide {
	s := &benchSide{spec: sandbox.Spec{Image: img, Mode: sandbox.ModeSession, Recycle: recyclable, Labels: map[string]string{"rbx.test": sandbox.LabelValue(b.Name())}}}
	var err error
	s.sb, err = rt.Create(context.Background(), s.spec)
	b.Cleanup(func() {
		if s.sb != nil {
			_ = s.sb.Remove(context.Background())
		}
	})
	require.NoError(b, err)
	return s
}

// BenchRecycle times, per op, an episode then a Recycle of one session
// sandbox of img (created before the timer starts, as BenchCreateRemove's
// first one is).
func BenchRecycle(b *testing.B, rt sandbox.Runtime, img string) {
	ctx := context.Background()
	s := newBenchSide(b, rt, img, true)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		RunBenchEpisode(b, s.sb)
		_, err := s.sb.(sandbox.Recycler).Recycle(ctx)
		require.NoError(b, err)
	}
	b.Logf("%s on %s: episode + Recycle: mean %v over %d", img, rt.Name(), time.Since(start)/time.Duration(b.N), b.N)
}

// BenchCreateRemove times, per op, the same episode then the Remove of
// the sandbox and the Create of the next (recyclable or plain).
func BenchCreateRemove(b *testing.B, rt sandbox.Runtime, img string, recyclable bool) {
	ctx := context.Background()
	s := newBenchSide(b, rt, img, recyclable)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		RunBenchEpisode(b, s.sb)
		require.NoError(b, s.sb.Remove(ctx))
		var err error
		s.sb, err = rt.Create(ctx, s.spec)
		require.NoError(b, err)
	}
	b.Logf("%s on %s: episode + Remove + Create (recyclable %v): mean %v over %d", img, rt.Name(), recyclable, time.Since(start)/time.Duration(b.N), b.N)
}
