package server_test

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// watch samples, from outside rbx, the server's running sandboxes (every
// 250 ms, through the engine: a list every 100 ms cost the engine measurable CPU) and the memory of the shims and the server
// (every 250 ms, from /proc) until stopped.
type watch struct {
	mu       sync.Mutex
	live     int // latest count
	peakLive int
	peakMem  memSample
	lastMem  memSample
	err      error // the first sampling error
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// startWatch samples for the server pid; over is called once when the
// live count passes maxLive (a safety stop on a shared engine).
func startWatch(ctx context.Context, cli *client.Client, pid, maxLive int, over func(error)) *watch {
	ctx, cancel := context.WithCancel(ctx)
	w := &watch{stop: cancel}
	var once sync.Once
	w.every(ctx, 250*time.Millisecond, func() error {
		ids, err := ownedBy(ctx, cli, pid, true)
		if err != nil {
			return err
		}
		w.mu.Lock()
		w.live, w.peakLive = len(ids), max(w.peakLive, len(ids))
		w.mu.Unlock()
		if len(ids) > maxLive {
			once.Do(func() { over(fmt.Errorf("%d live sandboxes over RBX_BENCH_MAX_LIVE=%d", len(ids), maxLive)) })
		}
		return nil
	})
	w.every(ctx, 250*time.Millisecond, func() error {
		m, err := readMem("/proc", pid)
		if err != nil {
			return err
		}
		w.mu.Lock()
		w.lastMem = m
		if m.Total > w.peakMem.Total {
			w.peakMem = m
		}
		w.mu.Unlock()
		return nil
	})
	return w
}

// every runs fn each period until ctx ends, keeping its first error.
func (w *watch) every(ctx context.Context, period time.Duration, fn func() error) {
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			if err := fn(); err != nil && ctx.Err() == nil {
				w.mu.Lock()
				w.err = cmp.Or(w.err, err)
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// snapshot returns the latest live count and memory sample.
func (w *watch) snapshot() (live int, mem memSample) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live, w.lastMem
}

// finish stops sampling and returns the peaks and the first error.
func (w *watch) finish() (peakLive int, peakMem memSample, err error) {
	w.stop()
	w.done.Wait()
	return w.peakLive, w.peakMem, w.err
}

// createCounter counts the engine's container create events for
// sandboxes (label rbx.managed=true) owned by pid while it runs.
type createCounter struct {
	n    atomic.Int64
	stop context.CancelFunc
	done chan error
}

func countCreates(ctx context.Context, cli *client.Client, pid int) *createCounter {
	ctx, cancel := context.WithCancel(ctx)
	c := &createCounter{stop: cancel, done: make(chan error, 1)}
	f := filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)), filters.Arg("event", string(events.ActionCreate)),
		filters.Arg("label", sandbox.LabelManaged+"=true"))
	msgs, errs := cli.Events(ctx, events.ListOptions{Filters: f})
	time.Sleep(300 * time.Millisecond) // the subscription is made in the background
	go func() {
		for {
			select {
			case m := <-msgs:
				if ownerPid(m.Actor.Attributes[sandbox.LabelOwner]) == pid {
					c.n.Add(1)
				}
			case err := <-errs:
				if ctx.Err() != nil {
					err = nil
				}
				c.done <- err
				return
			}
		}
	}()
	return c
}

// finish stops the stream and returns the count (an error when the
// stream broke before: the count would be short).
func (c *createCounter) finish() (int, error) {
	time.Sleep(500 * time.Millisecond) // the last creates' events in flight
	c.stop()
	if err := <-c.done; err != nil {
		return int(c.n.Load()), fmt.Errorf("engine events: %w", err)
	}
	return int(c.n.Load()), nil
}
