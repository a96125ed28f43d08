package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// prefilterOptions are the flags of `rbx prefilter`.
type prefilterOptions struct {
	paths       []string
	repeats     int
	concurrency int
	out         string
	report      string
	output      string
	resume      bool
	compare     string
	services    []string
	task        string
	tasks       string
	rt          runtimeFlags
	capacity    capacityFlags
}

func newPrefilterCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &prefilterOptions{}
	cmd := &cobra.Command{
		Use:   "prefilter DIR|FILE...",
		Short: "Keep only the trajectories that replay and pass their verifier, every time",
		Long: `Prefilter replays every trajectory found under DIR (recursively: tasks *.yaml,
*.yml or *.json, trajectories *.json with "steps" and *.jsonl) end to end, --repeats
times, each in a fresh sandbox, runs the task's verifier after each replay, and keeps a
trajectory only if every repeat passes. Rejections name a reason: parse_error,
image_missing, exit_code, output, action_failed, verify_failed, timeout, flaky,
session_lost or infra (docs/reasons.md).

Trajectories in the formats rbx import knows (OpenAI messages, ATIF, SWE-agent .traj,
mini-swe-agent, OpenHands) are prefiltered directly when their task is known: --task
for all of them, --tasks DIR to match them by id (trajectory id, file name or folder
name), or a task.yaml beside them; the others are listed with what they hold.

The kept set is written with --out as native files (each task copied with its files, so
the directory is itself a valid prefilter input). Each kept trajectory carries the
observations of its verified runs, pinned: exit codes and output digests, so later
replays check every step even when the source recorded none (see docs/prefilter.md).
--report writes the JSON report, also when interrupted, and --resume skips the
trajectories a previous report decided (interrupted ones are judged again).
Progress goes to stderr: a bar on a terminal, one line per verdict otherwise.
Exit status is 0 whatever was rejected; non-zero only for bad usage or nothing to
judge (2), an unavailable engine (5) or an interruption (130).`,
		Example: `  rbx prefilter runs/ --repeats 3 --concurrency 4 --out kept/ --report prefilter.json
  rbx prefilter runs/ --report prefilter.json --resume
  rbx prefilter examples/ --service otp=http://127.0.0.1:8181 --output json | jq .summary`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("%s: expected at least one DIR or FILE (see %s --help)", cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return runPrefilter(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.repeats, "repeats", "r", 3, "independent replays each trajectory must pass")
	f.IntVarP(&o.concurrency, "concurrency", "c", 4, "repeats running at once")
	f.StringVar(&o.out, "out", "", "write the kept set into this directory")
	f.StringVar(&o.report, "report", "", "write the JSON report to this file")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json (the report)")
	f.BoolVar(&o.resume, "resume", false, "skip trajectories already decided in the --report file")
	f.StringVar(&o.compare, "compare", string(replayer.CompareNormalized), "output comparison: exact, normalized, normalized_hex (also masks hex ids) or ignore")
	f.StringVar(&o.task, "task", "", "the task of every trajectory in a foreign format (OpenAI, SWE-agent, OpenHands...)")
	f.StringVar(&o.tasks, "tasks", "", "match foreign-format trajectories to the tasks under this directory by id")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	o.rt.register(cmd)
	o.capacity.register(cmd.Flags())
	return cmd
}

func (o *prefilterOptions) validate() error {
	switch {
	case o.output != "table" && o.output != "json":
		return usageError("--output %q: expected table or json", o.output)
	case o.repeats < 1:
		return usageError("--repeats %d: expected ≥ 1", o.repeats)
	case o.concurrency < 1:
		return usageError("--concurrency %d: expected ≥ 1", o.concurrency)
	case o.resume && o.report == "":
		return usageError("--resume needs --report FILE: the report to resume from")
	}
	return nil
}

func runPrefilter(ctx context.Context, s Streams, log *slog.Logger, o *prefilterOptions) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	// Each task's image is checked when its item is judged (imageCheck), so
	// that a missing one rejects the item instead of stopping the run.
	b, err := newStack(s, log, "prefilter", o.rt, withServiceFlags(o.services), withCompare(o.compare),
		withOrphansReaped(), withBudget(&o.capacity))
	if err != nil {
		return err
	}
	items, err := discover(s.ErrOut, o)
	if err != nil {
		return err
	}
	if err := o.rt.admit(itemTasks(items)...); err != nil {
		return err
	}
	opts := []prefilter.Option{prefilter.WithRepeats(o.repeats), prefilter.WithConcurrency(o.concurrency), prefilter.WithLogger(log)}
	if o.resume {
		prev, err := prefilter.ReadReport(o.report)
		switch {
		case errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(s.ErrOut, "no report at %s yet: judging everything\n", o.report)
		case err != nil:
			return fmt.Errorf("%w: --resume: %w", errUsage, err)
		default:
			opts = append(opts, prefilter.WithPrevious(prev))
		}
	}
	tasks := make([]*task.Task, 0, len(items))
	for _, it := range items {
		if it.Task != nil {
			tasks = append(tasks, it.Task)
		}
	}
	st, err := b.open(ctx, tasks...)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt, rp := st.rt, st.rp
	opts = append(opts, prefilter.WithBudget(st.budget))
	prog := newPrefilterProgress(s.ErrOut, len(items)*o.repeats)
	opts = append(opts, prefilter.WithImageCheck(imageCheck(rt, o.rt)), prefilter.WithProgress(prog.update))
	fmt.Fprintf(s.ErrOut, "prefilter: %d trajectories × %d repeats on %s, concurrency %d\n", len(items), o.repeats, rt.Name(), o.concurrency)
	rep, runErr := prefilter.Run(ctx, rt, rp, items, opts...)
	prog.finish()
	if rep == nil {
		return runErr
	}
	return errors.Join(runErr, writePrefilterOutputs(s, o, items, rep))
}

// discover finds what there is to judge; nothing is a usage error that
// names what was found, and foreign files without a task are listed.
func discover(errOut io.Writer, o *prefilterOptions) ([]*prefilter.Item, error) {
	var opts []prefilter.FindOption
	if o.task != "" {
		opts = append(opts, prefilter.WithTask(o.task))
	}
	if o.tasks != "" {
		opts = append(opts, prefilter.WithTasksDir(o.tasks))
	}
	found, err := prefilter.Find(o.paths, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	found.Items = withoutDir(found.Items, o.out)
	if err := found.Usable(o.paths); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if un := found.Unmatched(); len(un) > 0 {
		fmt.Fprintf(errOut, "not judged: %d trajectories in foreign formats with no task known\n", len(un))
		for _, fr := range un {
			fmt.Fprintln(errOut, "  "+fr.Describe())
		}
		fmt.Fprintln(errOut, prefilter.Hint(o.paths))
	}
	return found.Items, nil
}

// writePrefilterOutputs writes the report file, the kept set and stdout;
// after an interruption too, so that --resume can continue.
func writePrefilterOutputs(s Streams, o *prefilterOptions, items []*prefilter.Item, rep *prefilter.Report) error {
	var errs []error
	if o.report != "" {
		errs = append(errs, prefilter.WriteReport(o.report, rep))
	}
	if o.out != "" {
		written, err := prefilter.WriteKept(o.out, items, rep)
		errs = append(errs, err)
		fmt.Fprintf(s.ErrOut, "wrote %d kept trajectories to %s\n", len(written), o.out)
	}
	if o.output == "json" {
		errs = append(errs, writeJSON(s.Out, rep))
	} else {
		errs = append(errs, prefilter.WriteTable(s.Out, rep))
	}
	return errors.Join(errs...)
}

// imageCheck builds a task's image from its Dockerfile (build:) and a
// missing rbx/* base image (as replay does), then asks
// the runtime whether the task's image exists, without creating anything.
// A runtime without images (local) has nothing to check.
func imageCheck(rt sandbox.Runtime, f runtimeFlags) func(context.Context, *task.Task) error {
	return func(ctx context.Context, tk *task.Task) error {
		store, ok := rt.(sandbox.ImageStore)
		if !ok {
			return nil
		}
		// A task with build: gets its image built here, before its item is
		// judged; a failed build rejects the item (image_missing).
		if err := buildTaskImages(ctx, rt, io.Discard, tk); err != nil {
			if errors.Is(err, sandbox.ErrUnavailable) {
				return err
			}
			return fmt.Errorf("task %s: %w: %w", tk.ID, sandbox.ErrImageMissing, err)
		}
		if err := ensureImage(ctx, rt, f, tk.Image); err != nil {
			return err
		}
		present, err := store.ImagePresent(ctx, tk.Image)
		switch {
		case errors.Is(err, sandbox.ErrUnavailable):
			return fmt.Errorf("task %s: %w", tk.ID, err)
		case err != nil:
			return fmt.Errorf("task %s: %w: %w", tk.ID, sandbox.ErrUnavailable, err)
		case !present && sandbox.PullPolicy(f.pull).Effective(tk.Image) != sandbox.PullNever && f.pull != "":
			return nil // the create pulls it, or fails with pull_failed
		case !present:
			return fmt.Errorf("task %s: %w: %s (--pull never: build or load it first)", tk.ID, sandbox.ErrImageMissing, tk.Image)
		}
		return nil
	}
}

// prefilterProgress shows progress on stderr: a progress bar when stderr is
// a terminal (whatever --output is: stdout stays clean), else one line per
// verdict, which reads well in CI logs.
type prefilterProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newPrefilterProgress(w io.Writer, total int) *prefilterProgress {
	p := &prefilterProgress{w: w}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("replaying"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100_000_000))
	}
	return p
}

func (p *prefilterProgress) update(ev prefilter.Progress) {
	if p.bar != nil {
		_ = p.bar.Set(ev.Done)
		return
	}
	if r := ev.Decided; r != nil {
		fmt.Fprintf(p.w, "[%d/%d] %-9s %-14s %s %s\n", ev.Done, ev.Total, r.Status, strings.TrimSpace(string(r.Reason)), r.Key.File, r.Key.ID)
	}
}

func (p *prefilterProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// withoutDir drops the items found under dir: a kept set written inside
// the input directory is not judged again as input on the next run.
func withoutDir(items []*prefilter.Item, dir string) []*prefilter.Item {
	abs, err := filepath.Abs(dir)
	if dir == "" || err != nil {
		return items
	}
	return slices.DeleteFunc(items, func(it *prefilter.Item) bool {
		p, err := filepath.Abs(it.Key.File)
		return err == nil && strings.HasPrefix(p, abs+string(filepath.Separator))
	})
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// itemTasks are the distinct tasks of items.
func itemTasks(items []*prefilter.Item) []*task.Task {
	seen := map[*task.Task]bool{}
	var tasks []*task.Task
	for _, it := range items {
		if it.Task != nil && !seen[it.Task] {
			seen[it.Task] = true
			tasks = append(tasks, it.Task)
		}
	}
	return tasks
}
