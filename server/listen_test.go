package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8700", true},
		{"[::1]:0", true},
		{"localhost:8700", true},
		{"0.0.0.0:8700", false},
		{":8700", false},
		{"10.1.2.3:80", false},
		{"example.com:80", false},
	}
	for _, tt := range tests {
		got, err := server.Loopback(tt.addr)
		require.NoError(t, err, tt.addr)
		assert.Equal(t, tt.want, got, tt.addr)
	}
	_, err := server.Loopback("no-port")
	assert.Error(t, err)
}

// TestListenDrains: cancelling the context lets an in-flight request
// finish within the drain time.
func TestListenDrains(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(200 * time.Millisecond)
		_, _ = w.Write([]byte("done"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- server.Listen(ctx, ln, h, 5*time.Second) }()
	got := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			got <- -1
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-started
	cancel()
	assert.Equal(t, http.StatusOK, <-got, "the in-flight request finished")
	assert.NoError(t, <-served)
}

func TestReferences(t *testing.T) {
	tk := func(id string) *task.Task { return &task.Task{ID: id} }
	tr := func(id string) *trajectory.Trajectory { return &trajectory.Trajectory{ID: id} }
	items := []*prefilter.Item{
		{Key: prefilter.Key{File: "a/ref.json"}, Task: tk("a"), Traj: tr("a-ref")},
		{Key: prefilter.Key{File: "a/second.json"}, Task: tk("a"), Traj: tr("a-2")},
		{Key: prefilter.Key{File: "broken.json"}, Err: errors.New("bad json")},
		{Key: prefilter.Key{File: "b/ref.json"}, Task: tk("b"), Traj: tr("b-ref")},
	}
	entries, skipped, err := server.References(items)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, "a-ref", entries[0].Ref.ID, "the first trajectory of a task is its reference")
	assert.Equal(t, "b-ref", entries[1].Ref.ID)
	assert.Len(t, skipped, 2)

	_, _, err = server.References(items[2:3])
	assert.ErrorIs(t, err, server.ErrNoEntries)
}

// reapCounter is a Reapable with nothing to reap that counts the sweeps.
type reapCounter struct {
	mu sync.Mutex
	n  int
}

func (r *reapCounter) List(context.Context, map[string]string) ([]sandbox.Info, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return nil, nil
}

func (r *reapCounter) Remove(context.Context, string) error { return nil }

func TestReapLoop(t *testing.T) {
	rt := &reapCounter{}
	ctx, cancel := context.WithCancel(context.Background())
	reports := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		server.ReapLoop(ctx, rt, time.Millisecond, 5*time.Millisecond, func([]sandbox.Info, error) {
			select {
			case reports <- struct{}{}:
			default: // the test has seen enough
			}
		})
		close(done)
	}()
	for range 3 {
		select {
		case <-reports:
		case <-time.After(5 * time.Second):
			t.Fatal("no sweep")
		}
	}
	cancel()
	<-done
	rt.mu.Lock()
	defer rt.mu.Unlock()
	assert.GreaterOrEqual(t, rt.n, 3)
}
