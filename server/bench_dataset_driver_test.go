package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// trainer is the driver's shape: each iteration samples Groups random
// tasks (seeded) and resets a group of Group at checkpoint auto for each;
// every member runs Steps shell calls, then evaluate. The groups of an
// iteration run at once, at most Clients of them at a time.
type trainer struct {
	Iterations int   `json:"iterations"`
	Groups     int   `json:"groups"`
	Group      int   `json:"group"`
	Steps      int   `json:"steps"`
	Clients    int   `json:"clients"`
	Seed       int64 `json:"seed"`
}

// driveStats is what the driver measured.
type driveStats struct {
	mu         sync.Mutex
	resets     []time.Duration // one group's successful reset call
	resetsWait []time.Duration // the same, with the 429 waits before it
	errs       []string        // the first errors, for the report
	episodes   atomic.Int64    // evaluated
	nErr       atomic.Int64
	n429       atomic.Int64
	wall       time.Duration
}

// drive runs the trainer against c over ids, a line per iteration to
// progress.
func (tr trainer) drive(ctx context.Context, c *client.Client, ids []string, progress io.Writer) *driveStats {
	st := &driveStats{}
	rng := rand.New(rand.NewPCG(uint64(tr.Seed), 0))
	start := time.Now()
	for it := 0; it < tr.Iterations && ctx.Err() == nil; it++ {
		g := errgroup.Group{}
		g.SetLimit(tr.Clients)
		for i := 0; i < tr.Groups; i++ {
			id := ids[rng.IntN(len(ids))]
			g.Go(func() error { tr.group(ctx, c, id, st); return nil })
		}
		_ = g.Wait()
		fmt.Fprintf(progress, "dataset bench: iteration %d of %d done at %.1f s: %d episodes, %d errors, %d 429s\n",
			it+1, tr.Iterations, time.Since(start).Seconds(), st.episodes.Load(), st.nErr.Load(), st.n429.Load())
	}
	st.wall = time.Since(start)
	return st
}

// group resets one group and plays every member at once.
func (tr trainer) group(ctx context.Context, c *client.Client, task string, st *driveStats) {
	var rr *server.ResetResponse
	var call time.Duration
	begin := time.Now()
	err := st.retry(ctx, func() (err error) {
		t0 := time.Now()
		rr, err = c.Reset(ctx, server.ResetRequest{Task: task, Checkpoint: json.RawMessage(`"auto"`), Group: &tr.Group})
		call = time.Since(t0)
		return err
	})
	if err != nil {
		st.fail("reset %s: %v", task, err)
		return
	}
	st.mu.Lock()
	st.resets, st.resetsWait = append(st.resets, call), append(st.resetsWait, time.Since(begin))
	st.mu.Unlock()
	var wg sync.WaitGroup
	for _, ep := range rr.Episodes {
		wg.Add(1)
		go func() { defer wg.Done(); tr.member(ctx, c, ep.ID, st) }()
	}
	wg.Wait()
}

// member runs the steps and the evaluation of one episode.
func (tr trainer) member(ctx context.Context, c *client.Client, ep string, st *driveStats) {
	for i := 0; i < tr.Steps; i++ {
		args := json.RawMessage(fmt.Sprintf(`{"command": "echo x%d >> f; ls"}`, i))
		req := server.StepRequest{ToolCall: &server.ToolCall{Name: "shell", Arguments: args}}
		if err := st.retry(ctx, func() error { _, err := c.Step(ctx, ep, req); return err }); err != nil {
			st.fail("step %d of %s: %v", i, ep, err)
			_ = c.Close(context.WithoutCancel(ctx), ep)
			return
		}
	}
	if err := st.retry(ctx, func() error { _, err := c.Evaluate(ctx, ep); return err }); err != nil {
		st.fail("evaluate %s: %v", ep, err)
		_ = c.Close(context.WithoutCancel(ctx), ep) // best effort: the sandbox back
		return
	}
	st.episodes.Add(1)
}

// retry calls fn again after each 429, waiting what Retry-After says
// (1 s without one), until it answers otherwise or ctx ends.
func (st *driveStats) retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		var ae *server.APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests {
			return err
		}
		st.n429.Add(1)
		wait := time.Duration(max(ae.RetryAfter, 1)) * time.Second
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after a 429: %v)", context.Cause(ctx), err)
		case <-time.After(wait):
		}
	}
}

// fail counts an error and keeps the first 20 for the report.
func (st *driveStats) fail(format string, args ...any) {
	st.nErr.Add(1)
	st.mu.Lock()
	if len(st.errs) < 20 {
		st.errs = append(st.errs, fmt.Sprintf(format, args...))
	}
	st.mu.Unlock()
}
