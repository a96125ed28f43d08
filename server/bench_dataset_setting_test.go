package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/rbx-sandbox/rbx/internal/datasettest"
	"github.com/rbx-sandbox/rbx/sandbox"
	rbxclient "github.com/rbx-sandbox/rbx/server/client"
)

// setting is one served dataset: n generated tasks over images, served
// with flags.
type setting struct {
	key    string // what RBX_BENCH_SETTINGS names it by
	name   string
	tasks  int
	images []string
	flags  []string
}

// datasetEnv is what every setting shares: the engine, the rbx binary,
// the driver and the live-sandbox safety cap.
type datasetEnv struct {
	cli     *client.Client
	bin     string
	from    string // how bin was made, for the report
	trainer trainer
	maxLive int
}

// runSetting writes the tasks, starts rbx serve on them, waits for the
// pools to settle, drives it, stops it with SIGTERM and counts what it
// left. The figures measured so far are returned with any error.
func (env *datasetEnv) runSetting(ctx context.Context, b *testing.B, s setting) (settingFigures, error) {
	f := settingFigures{Name: s.name, Tasks: s.tasks, Images: s.images, Flags: s.flags}
	dir := b.TempDir()
	written, err := datasettest.Write(dir, s.tasks, s.images)
	if err != nil {
		return f, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p, err := startServe(ctx, b, env.bin, dir, s.flags)
	if p != nil && p.cmd.Process != nil {
		pid := p.cmd.Process.Pid
		b.Cleanup(func() { _ = removeOwned(context.Background(), env.cli, pid) })
	}
	if err != nil {
		return f, err
	}
	pid := p.cmd.Process.Pid
	f.ListeningS, f.HealthyS = p.listening.Seconds(), p.healthy.Seconds()
	w := startWatch(ctx, env.cli, pid, env.maxLive, cancel)
	var idle memSample
	f.IdleLive, idle = settle(ctx, w)
	f.IdleMemMiB = mib(idle.Total)
	st, cerr := env.drive(ctx, p, pid, taskIDs(written), &f)
	if h, err := p.health(ctx); err == nil && h.Capacity != nil {
		f.Budget, f.ReportedPeak = h.Capacity.Max, h.Capacity.Peak
	}
	peakLive, peakMem, werr := w.finish()
	f.PeakLive, f.PeakMemMiB, f.PeakRBXMiB, f.PeakShims = peakLive, mib(peakMem.Total), mib(peakMem.RBX), peakMem.Shims
	serr := p.stop()
	left, lerr := ownedBy(context.WithoutCancel(ctx), env.cli, pid, false)
	f.Left = len(left)
	var derr error
	if len(st.errs) > 0 {
		derr = fmt.Errorf("%d driver errors, first: %v", st.nErr.Load(), st.errs)
	}
	return f, errors.Join(context.Cause(ctx), cerr, werr, serr, lerr, derr)
}

// drive counts the engine's sandbox creates while the trainer runs.
func (env *datasetEnv) drive(ctx context.Context, p *serveProc, pid int, ids []string, f *settingFigures) (*driveStats, error) {
	cc := countCreates(ctx, env.cli, pid)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}, Timeout: 5 * time.Minute} // an engine that hangs fails the call, not the run
	c, err := rbxclient.New(p.url, rbxclient.WithHTTPClient(hc))
	if err != nil {
		return &driveStats{}, err
	}
	cpu0, cerr := readCPU("/proc", pid)
	st := env.trainer.drive(ctx, c, ids, os.Stderr)
	creates, err := cc.finish()
	f.fill(st, creates)
	if cpu1, cerr2 := readCPU("/proc", pid); cerr == nil && cerr2 == nil {
		f.fillCPU(cpuSpent(cpu0, cpu1))
	} else {
		fmt.Fprintf(os.Stderr, "dataset: CPU accounting: %v\n", errors.Join(cerr, cerr2))
	}
	return st, err
}

// settle waits until the server's live sandbox count has not changed for
// 3 s (its pools filled), at most 3 minutes, and returns that count and
// the memory then: the idle figures.
func settle(ctx context.Context, w *watch) (int, memSample) {
	last, _ := w.snapshot()
	since, deadline := time.Now(), time.Now().Add(3*time.Minute)
	for time.Since(since) < 3*time.Second && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(250 * time.Millisecond)
		if n, _ := w.snapshot(); n != last {
			last, since = n, time.Now()
		}
	}
	return w.snapshot()
}

func taskIDs(ts []datasettest.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// removeOwned force-removes every sandbox the server process pid owns.
func removeOwned(ctx context.Context, cli *client.Client, pid int) error {
	return removeLabelled(ctx, cli, sandbox.LabelManaged+"=true", func(c container.Summary) bool {
		return ownerPid(c.Labels[sandbox.LabelOwner]) == pid
	})
}
