package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestStackOptions: the options' own logic — services merged in order,
// flag errors before anything opens, a bad --compare a usage error naming
// it, warming refused without a budget, episodeOptions' parts.
func TestStackOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    []stackOption
		usage   bool   // the error is a usage error
		wantErr string // "" for none
		check   func(t *testing.T, c stackConfig)
	}{
		{name: "bare", check: func(t *testing.T, c stackConfig) {
			assert.Empty(t, c.services)
			assert.False(t, c.reap || c.reapLoop || c.images || c.resetter || c.warm)
			assert.Nil(t, c.capacity)
		}},
		{name: "services merged, the later wins", opts: []stackOption{
			withServices(map[string]string{"otp": "http://a", "db": "http://d"}),
			withServiceFlags([]string{"otp=http://b"}),
		}, check: func(t *testing.T, c stackConfig) {
			assert.Equal(t, map[string]string{"otp": "http://b", "db": "http://d"}, c.services)
		}},
		{name: "bad --service", opts: []stackOption{withServiceFlags([]string{"otp"})}, usage: true, wantErr: `--service "otp": expected NAME=URL`},
		{name: "bad --compare", opts: []stackOption{withCompare("fuzzy")}, usage: true, wantErr: "--compare"},
		{name: "good --compare", opts: []stackOption{withCompare("exact")}, check: func(t *testing.T, c stackConfig) {
			assert.True(t, c.compare)
			assert.Len(t, c.replay, 1)
		}},
		{name: "bad --prefix-cache", opts: []stackOption{withPrefixCache(&prefixFlags{mode: "maybe"}, 4)}, usage: true, wantErr: `--prefix-cache "maybe"`},
		{name: "prefix cache off adds nothing", opts: []stackOption{withPrefixCache(&prefixFlags{mode: "off"}, 4)}, check: func(t *testing.T, c stackConfig) {
			assert.Empty(t, c.reset)
		}},
		{name: "prefix cache on", opts: []stackOption{withPrefixCache(&prefixFlags{mode: "on", mib: 1, age: time.Hour, stage: -1}, 4)}, check: func(t *testing.T, c stackConfig) {
			assert.Len(t, c.reset, 2, "the cache and its staging")
		}},
		{name: "the first flag error wins", opts: []stackOption{withServiceFlags([]string{"x"}), withPrefixCache(&prefixFlags{mode: "maybe"}, 4)}, usage: true, wantErr: "--service"},
		{name: "warming without a budget", opts: []stackOption{withWarming(2)}, wantErr: "warming needs a budget"},
		{name: "warming with a budget", opts: []stackOption{withBudget(&capacityFlags{}), withWarming(3)}, check: func(t *testing.T, c stackConfig) {
			assert.True(t, c.warm)
			assert.Equal(t, 3, c.classMax)
		}},
		{name: "episode options", opts: []stackOption{episodeOptions(&capacityFlags{max: 2}, 5)}, check: func(t *testing.T, c stackConfig) {
			assert.True(t, c.reap && c.images && c.resetter)
			assert.False(t, c.reapLoop)
			assert.Equal(t, 5, c.pool)
			require.NotNil(t, c.capacity)
			assert.Equal(t, 2, c.capacity.max)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := newStack(Streams{ErrOut: io.Discard}, discardLog(), "test", runtimeFlags{name: "local"}, tc.opts...)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, tc.usage, errors.Is(err, errUsage), "usage error: %v", err)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, b.rp)
			assert.Equal(t, "test", b.cfg.command)
			if tc.check != nil {
				tc.check(t, b.cfg)
			}
		})
	}
}

// TestStackOpen opens a stack on the local runtime (nothing is created
// until a reset): the budget is printed under the command's name, the
// recycling decision is asked with the open runtime, and Close releases
// it all.
func TestStackOpen(t *testing.T) {
	var errOut bytes.Buffer
	var asked sandbox.Runtime
	b, err := newStack(Streams{ErrOut: &errOut}, discardLog(), "probe", runtimeFlags{name: "local"},
		withBudget(&capacityFlags{max: 3, wait: time.Minute}), withImages(), withResetter(2),
		withRecycling(func(rt sandbox.Runtime) bool { asked = rt; return false }))
	require.NoError(t, err)
	st, err := b.open(context.Background(), &task.Task{ID: "t", Image: "rbx/busybox:latest"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, st.Close(context.Background())) })
	assert.Contains(t, errOut.String(), "rbx probe: budget of 3 live sandboxes (--max-sandboxes)")
	require.NotNil(t, st.budget)
	assert.Equal(t, 3, st.budget.Max())
	require.NotNil(t, st.rs)
	assert.Same(t, st.budget, st.rs.Budget(), "the resetter counts against the command's budget")
	assert.Equal(t, st.rt, asked)
}

// TestStackOpenFailsOnBadBudget: a failure after the runtime is open is
// returned as is (the runtime is closed by open).
func TestStackOpenFailsOnBadBudget(t *testing.T) {
	b, err := newStack(Streams{ErrOut: io.Discard}, discardLog(), "probe", runtimeFlags{name: "local"},
		withBudget(&capacityFlags{max: -1, wait: time.Minute}))
	require.NoError(t, err)
	_, err = b.open(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--max-sandboxes -1")
}

func TestImagesOf(t *testing.T) {
	tasks := []*task.Task{{Image: "b"}, {Image: "a"}, {Image: "b"}, {Image: ""}}
	assert.Equal(t, []string{"b", "a", ""}, imagesOf(tasks))
	assert.Empty(t, imagesOf(nil))
}
