package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// demoPrefilter proves the examples replay and pass, twice each.
func demoPrefilter(ctx context.Context, s Streams, rt sandbox.Runtime, rp *replayer.Replayer, dir string) error {
	fmt.Fprintf(s.Out, "\n== prefilter: every example replayed end to end 2x in fresh sandboxes, verified ==\n")
	items, err := prefilter.Discover(dir)
	if err != nil {
		return fmt.Errorf("demo prefilter: %w", err)
	}
	rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(2), prefilter.WithConcurrency(4))
	if err != nil {
		return fmt.Errorf("demo prefilter: %w", err)
	}
	if err := prefilter.WriteTable(s.Out, rep); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if r.Status != prefilter.StatusKept {
			return fmt.Errorf("%w: demo prefilter rejected %s: %s", errVerifyFailed, r.Key, r.Reason)
		}
	}
	return nil
}

// demoServe runs a short served curriculum: rbx serve in-process on
// loopback with Heuristic Sequential rollback, and an expert client that
// plays the reference suffix from whatever checkpoint it is given, until
// the task is solved from k = 0.
func demoServe(ctx context.Context, s Streams, log *slog.Logger, rt sandbox.Runtime, rp *replayer.Replayer, dir, example string) error {
	in, err := loadTrajectory(filepath.Join(dir, example, "trajectory.json"), "", "")
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "\n== serve: a short curriculum on %s (heuristic rollback, expert client over HTTP) ==\n", in.task.ID)
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Heuristic))
	if err != nil {
		return err
	}
	if err := eng.Register(curriculum.FromTrajectory(in.task.ID, in.traj)); err != nil {
		return err
	}
	rs, err := reset.New(rt, rp, reset.WithLogger(log), reset.WithPoolOptions(pool.WithSize(2)))
	if err != nil {
		return err
	}
	srv, err := server.New(ctx, rs, rp, eng, []server.Entry{{Task: in.task, Ref: in.traj}}, server.WithLogger(log))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() {
		_ = hs.Close()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = srv.Close(cctx)
		_ = rs.Close(cctx)
	}()
	c := &demoClient{base: "http://" + ln.Addr().String()}
	var (
		mu     sync.Mutex
		served []string
	)
	for ep := 0; ep < 120 && ctx.Err() == nil; ep += 2 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 { // two episodes at a time, as a trainer's workers would
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, ok, err := c.episode(ctx, in)
				errs[w] = err
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					served = append(served, fmt.Sprintf("%d%s", k, map[bool]string{true: "", false: "✗"}[ok]))
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return fmt.Errorf("demo serve: %w", err)
			}
		}
		if st, err := eng.Status(in.task.ID); err == nil && st.Solved {
			fmt.Fprintf(s.Out, "checkpoints served, in order: %s\n", strings.Join(served, " "))
			fmt.Fprintf(s.Out, "solved from k=0 after %d episodes (T=%d)\n", len(served), in.traj.Len())
			return nil
		}
	}
	return fmt.Errorf("demo serve: not solved after %d episodes: %s", len(served), strings.Join(served, " "))
}

// demoClient is a minimal HTTP client of the serve API.
type demoClient struct{ base string }

func (c *demoClient) call(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, data)
	}
	return json.Unmarshal(data, out)
}

// episode resets with checkpoint auto, plays the reference suffix and evaluates.
func (c *demoClient) episode(ctx context.Context, in *loaded) (int, bool, error) {
	var rr server.ResetResponse
	if err := c.call(ctx, "/v1/reset", server.ResetRequest{Task: in.task.ID}, &rr); err != nil {
		return 0, false, err
	}
	ep := rr.Episodes[0].ID
	for i := rr.K; i < in.traj.Len(); i++ {
		st := in.traj.Steps[i]
		if st.Action == "noop" {
			continue
		}
		args, err := tools.Arguments(st)
		if err != nil {
			return 0, false, err
		}
		var sr server.StepResponse
		if err := c.call(ctx, "/v1/episodes/"+ep+"/step", server.StepRequest{ToolCall: &server.ToolCall{Name: string(st.Action), Arguments: args}}, &sr); err != nil {
			return 0, false, err
		}
	}
	var ev server.EvaluateResponse
	if err := c.call(ctx, "/v1/episodes/"+ep+"/evaluate", struct{}{}, &ev); err != nil {
		return 0, false, err
	}
	return rr.K, ev.Success, nil
}
