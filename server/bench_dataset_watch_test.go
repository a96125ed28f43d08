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

// watch measures, from outside rbx, the server's running sandboxes (from
// the engine's event stream: start and die events of containers it owns,
// counted from one listing at the start — polling a listing every 250 ms
// cost the engine and the benchmark a quarter of a core under load) and
// the memory of the shims and the server (every second, from /proc) until
// stopped.
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

// startWatch watches the server pid; over is called once when the live
// count passes maxLive (a safety stop on a shared engine).
func startWatch(ctx context.Context, cli *client.Client, pid, maxLive int, over func(error)) *watch {
	ctx, cancel := context.WithCancel(ctx)
	w := &watch{stop: cancel}
	var once sync.Once
	w.countLive(ctx, cli, pid, func(n int) {
		if n > maxLive {
			once.Do(func() { over(fmt.Errorf("%d live sandboxes over RBX_BENCH_MAX_LIVE=%d", n, maxLive)) })
		}
	})
	w.every(ctx, time.Second, func() error {
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

// countLive keeps w.live and w.peakLive from the engine's start and die
// events of the containers pid owns, from a listing taken once the
// subscription is made; check gets every new count.
func (w *watch) countLive(ctx context.Context, cli *client.Client, pid int, check func(int)) {
	f := filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("event", string(events.ActionStart)), filters.Arg("event", string(events.ActionDie)),
		filters.Arg("label", sandbox.LabelManaged+"=true"))
	msgs, errs := cli.Events(ctx, events.ListOptions{Filters: f})
	time.Sleep(300 * time.Millisecond) // the subscription is made in the background
	ids, err := ownedBy(ctx, cli, pid, true)
	w.mu.Lock()
	w.live, w.peakLive, w.err = len(ids), len(ids), err
	w.mu.Unlock()
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		for {
			select {
			case m := <-msgs:
				if ownerPid(m.Actor.Attributes[sandbox.LabelOwner]) != pid {
					continue
				}
				w.mu.Lock()
				if m.Action == events.ActionStart {
					w.live++
				} else {
					w.live--
				}
				n := w.live
				w.peakLive = max(w.peakLive, n)
				w.mu.Unlock()
				check(n)
			case err := <-errs:
				w.mu.Lock()
				if ctx.Err() == nil {
					w.err = cmp.Or(w.err, fmt.Errorf("engine events: %w", err))
				}
				w.mu.Unlock()
				return
			}
		}
	}()
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
