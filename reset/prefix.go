package reset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// imaged is implemented by sandboxes that know their image's content id
// (docker, containerd): the prefix cache keys entries by it.
type imaged interface{ ImageID() string }

// replay brings sb, fresh from the task's pool, to checkpoint k: from the
// prefix cache where it can, live otherwise. It fills ep's report, cache
// use and timings.
func (r *Resetter) replay(ctx context.Context, tp taskPool, sb sandbox.Sandbox, tk *task.Task, traj *trajectory.Trajectory, k int, ep *Episode) (*replayer.Run, error) {
	c, digest := r.cfg.cache, tp.digest
	if c == nil || k == 0 || digest == "" {
		return r.live(ctx, r.rp.Start(sb, tk, traj), k, ep, nil)
	}
	img := ""
	if im, ok := sb.(imaged); ok {
		img = im.ImageID()
	}
	if img == "" {
		r.noImage.Do(func() {
			r.cfg.log.Warn("prefix cache: the sandbox backend reports no image id; replaying live", "task", tk.ID)
		})
		c.Bypass()
		ep.Cache = CacheBypass
		return r.live(ctx, r.rp.Start(sb, tk, traj), k, ep, nil)
	}
	plan := c.Plan(tk.ID, digest, img, traj, k)
	if plan.Key.J == 0 {
		c.Bypass()
		ep.Cache = CacheBypass
		return r.live(ctx, r.rp.Start(sb, tk, traj), k, ep, nil)
	}
	e, b, err := c.Lookup(ctx, plan)
	switch {
	case e != nil:
		run, err := r.fromEntry(ctx, c, e, sb, tk, traj, k, ep)
		if err == nil {
			r.stageEntry(tp, e, tk, k)
		}
		return run, err
	case b != nil:
		run, err := r.build(ctx, b, sb, tk, traj, k, ep)
		if err == nil {
			r.stageEntry(tp, b.Entry(), tk, k)
		}
		return run, err
	case errors.Is(err, prefix.ErrNotReusable):
		ep.Cache = CacheBypass
		return r.live(ctx, r.rp.Start(sb, tk, traj), k, ep, nil)
	}
	return nil, err
}

// live replays run to k, after the reports of steps already replayed.
func (r *Resetter) live(ctx context.Context, run *replayer.Run, k int, ep *Episode, before []*replayer.Report) (*replayer.Run, error) {
	start := time.Now()
	rep, err := run.To(ctx, k)
	ep.Timings.Replay += time.Since(start)
	ep.Report = merge(append(before, rep), k)
	return run, err
}

// fromEntry restores e into sb and replays [J, k) live.
func (r *Resetter) fromEntry(ctx context.Context, c *prefix.Cache, e *prefix.Entry, sb sandbox.Sandbox, tk *task.Task, traj *trajectory.Trajectory, k int, ep *Episode) (*replayer.Run, error) {
	start := time.Now()
	err := c.Apply(ctx, e, sb)
	ep.Timings.Apply += time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("restore the cached state of steps [0, %d): %w", e.Key.J, err)
	}
	ep.Cache, ep.Cached = CacheHit, e.Key.J
	cached := &replayer.Report{Task: tk.ID, Trajectory: traj.ID, From: 0, To: e.Key.J, T: traj.Len(), Steps: e.Steps}
	return r.live(ctx, r.rp.StartAt(sb, tk, traj, e.Key.J, e.Vars), k, ep, []*replayer.Report{cached})
}

// build replays the plan's prefix live while capturing it for the cache,
// then replays the rest to k.
func (r *Resetter) build(ctx context.Context, b *prefix.Build, sb sandbox.Sandbox, tk *task.Task, traj *trajectory.Trajectory, k int, ep *Episode) (*replayer.Run, error) {
	run := r.rp.Start(sb, tk, traj)
	start := time.Now()
	reps, err := b.Run(ctx, sb, provision.Spec(tk).Mode == sandbox.ModeSession, traj, run)
	total, replayed := time.Since(start), time.Duration(0)
	for _, rep := range reps {
		replayed += rep.Duration
	}
	ep.Timings.Replay += replayed
	ep.Timings.Build += total - replayed
	ep.Cache = CacheBuilt
	if b.Entry() == nil { // not reusable after all (logged): all live
		ep.Cache = CacheBypass
	}
	if err != nil {
		ep.Report = merge(reps, k)
		return run, err
	}
	return r.live(ctx, run, k, ep, reps)
}

// merge joins consecutive reports into one of [first.From, k).
func merge(reps []*replayer.Report, k int) *replayer.Report {
	reps = slices.DeleteFunc(slices.Clone(reps), func(r *replayer.Report) bool { return r == nil })
	if len(reps) == 0 {
		return nil
	}
	if len(reps) == 1 {
		return reps[0]
	}
	last := reps[len(reps)-1]
	out := *last
	out.From, out.To, out.Steps, out.Duration = reps[0].From, k, nil, 0
	for _, r := range reps {
		out.Steps = append(out.Steps, r.Steps...)
		out.Duration += r.Duration
	}
	return &out
}

// taskDigest is the prefix cache's identity of a task: its pool key (spec,
// files map, directory) and the contents and modes of the files staged
// into its sandboxes.
func taskDigest(key string, tk *task.Task) (string, error) {
	files, err := tk.Expand(tk.Files)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(key))
	for _, f := range files {
		data, err := os.ReadFile(f.Src)
		if err != nil {
			return "", fmt.Errorf("task %q: %w", tk.ID, err)
		}
		fmt.Fprintf(h, "\x00%s\x00%o\x00%d\x00", f.Dest, f.Mode, len(data))
		h.Write(data)
	}
	return key + "-" + hex.EncodeToString(h.Sum(nil)[:8]), nil
}
