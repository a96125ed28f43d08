package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/sim"
	"github.com/rbx-sandbox/rbx/dashboard"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// demoServe serves example in-process with the rollback curriculum and
// trains the softmax learner on it twice, the same episode budget each:
// from k = 0 only, and from the checkpoints the curriculum serves. It
// prints their progress and the final policies' success from k = 0, and
// plots both runs (the seed's figures).
func demoServe(ctx context.Context, s Streams, log *slog.Logger, st *stack, dir, example string, o *demoOptions) error {
	in, err := loadTrajectory(filepath.Join(dir, example, "trajectory.json"), "", "")
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "\n== serve and learn: a softmax policy trained on %s from the verifier's reward alone, %d episodes per run ==\n", in.task.ID, o.episodes)
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Sequential))
	if err != nil {
		return err
	}
	if err := eng.Register(curriculum.FromTrajectory(in.task.ID, in.traj)); err != nil {
		return err
	}
	// Only this stage resets, so only it has a resetter, closed at its end.
	rs, err := st.newResetter(withResetter(2), withRecycling(func(rt sandbox.Runtime) bool {
		if o.rt.agent == "" || !sandbox.FeaturesOf(rt).Recycle {
			return false
		}
		fmt.Fprintf(s.ErrOut, "demo: recycling ended episodes' sandboxes in place (agent %s)\n", o.rt.agent)
		return true
	}))
	if err != nil {
		return err
	}
	srv, err := server.New(ctx, rs, st.rp, eng, []server.Entry{{Task: in.task, Ref: in.traj}}, server.WithLogger(log))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	h, err := dashboard.Mount(srv.Handler(), dashboard.WithLogger(log))
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() {
		_ = hs.Close()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = srv.Close(cctx)
		_ = rs.Close(cctx)
	}()
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(s.ErrOut, "demo: serving on %s (dashboard %s%s/, live while the demo runs)\n", url, url, dashboard.Prefix)
	c, err := client.New(url)
	if err != nil {
		return err
	}
	runs := make([]*learnRun, 2)
	for i, spec := range []struct{ name, checkpoint string }{{"from k=0 only", "0"}, {"rollback (served)", `"auto"`}} {
		pol, err := policy.NewSoftmax(in.traj, in.task.Workdir, o.learningRate)
		if err != nil {
			return err
		}
		runs[i] = &learnRun{name: spec.name, checkpoint: json.RawMessage(spec.checkpoint), pol: pol}
	}
	chance := 1.0
	for i := range in.traj.Steps {
		chance *= runs[0].pol.Prob(i, 0)
	}
	fmt.Fprintf(s.Out, "candidates per step: the reference's action, skipping it, a realistic mistake (unmarked);\n"+
		"the reference's action at every step has probability %.2g at the start\n", chance)
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range runs {
		g.Go(func() error { return r.train(gctx, s, c, in.task.ID, o.episodes, uint64(i+1)) })
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("demo learn: %w", err)
	}
	const evalEpisodes = 16
	wins := make([]int, len(runs))
	for i, r := range runs {
		g.Go(func() (err error) {
			wins[i], err = endToEnd(ctx, c, r.pol, in.task.ID, evalEpisodes, uint64(i+1))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("demo learn: end-to-end check: %w", err)
	}
	fmt.Fprintf(s.Out, "success of the final policy from k=0 (%d episodes each, no learning):\n", evalEpisodes)
	var series []sim.Series
	for i, r := range runs {
		rate, _ := r.recent(len(r.trace))
		fmt.Fprintf(s.Out, "  %-18s %2d/%d   (during training: %.0f%% of %d episodes)\n", r.name, wins[i], evalEpisodes, 100*rate, len(r.trace))
		series = append(series, sim.Series{Strategy: r.name, Trace: r.trace})
	}
	if st, err := eng.Status(in.task.ID); err == nil && st.Solved {
		fmt.Fprintln(s.Out, "the curriculum reached k=0 and saw the task solved from the start")
	}
	if o.plot != "" {
		if err := sim.Plot(o.plot, series, 20); err != nil {
			return fmt.Errorf("demo learn: %w", err)
		}
		fmt.Fprintf(s.Out, "plot: %s (checkpoint served and success rate per episode, both runs)\n", o.plot)
	}
	if wins[1] <= wins[0] {
		return fmt.Errorf("demo learn: the rollback run's policy (%d/%d from k=0) did no better than the k=0 run's (%d/%d)", wins[1], evalEpisodes, wins[0], evalEpisodes)
	}
	return nil
}
