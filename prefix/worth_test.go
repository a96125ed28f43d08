package prefix

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
)

// steps is a Stepper whose steps take no time.
type steps struct{ at int }

func (s *steps) Through(_ context.Context, k int) (*replayer.Report, error) {
	s.at = k
	return &replayer.Report{}, nil
}
func (s *steps) Vars() map[string]string { return nil }

// TestCacheWorth: on an image whose captures are dear, a prefix's first
// miss replays it live and times it; one that replays faster than a
// capture is then bypassed (said once per image), one slower is built; on
// a cheap image every prefix is built.
func TestCacheWorth(t *testing.T) {
	var logs bytes.Buffer
	c, err := New(WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	ctx := context.Background()
	traj := testTraj(4)

	cheap := c.Plan("tk", "task", "busybox", traj, 3)
	c.observeCapture("busybox", 300*time.Millisecond)
	build, measure, _ := c.worth(cheap.Key)
	assert.True(t, build, "a cheap image builds at once")
	assert.False(t, measure)

	p := c.Plan("tk", "task", "toolchain", traj, 3)
	c.observeCapture("toolchain", 5*time.Second)
	_, b, err := c.Lookup(ctx, p)
	require.NoError(t, err)
	run := &steps{}
	reps, err := b.Run(ctx, nil, true, traj, run) // the sandbox is not touched
	require.NoError(t, err)
	assert.Len(t, reps, 3)
	assert.Equal(t, 3, run.at, "the first miss replays the prefix live")
	assert.Nil(t, b.Entry())

	_, b, err = c.Lookup(ctx, p)
	require.NoError(t, err)
	run = &steps{}
	reps, err = b.Run(ctx, nil, true, traj, run)
	require.NoError(t, err)
	assert.Empty(t, reps, "not worth it: the caller replays live")
	_, b, err = c.Lookup(ctx, p)
	assert.Nil(t, b)
	require.ErrorIs(t, err, ErrNotReusable)
	assert.Contains(t, err.Error(), "cheaper than capturing")
	assert.Contains(t, logs.String(), "image=toolchain")

	slow := c.Plan("tk", "task", "toolchain", traj, 2)
	c.observeReplay(slow.Key, 6*time.Second)
	build, measure, _ = c.worth(slow.Key)
	assert.True(t, build, "a prefix that replays slower than a capture is built")
	assert.False(t, measure)
}
