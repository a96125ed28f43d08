package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/verifier"
)

// replayOptions are the flags of `rbx replay`.
type replayOptions struct {
	trajectory string
	id         string
	taskPath   string
	to         int
	toSet      bool // --to given; otherwise the whole trajectory
	keep       bool
	verify     bool
	output     string
	compare    string
	services   []string
	rt         runtimeFlags
}

func newReplayCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay TRAJECTORY",
		Short: "Replay a trajectory's steps [0,k) into a fresh sandbox",
		Long: `Replay starts a sandbox for the trajectory's task, copies the task's files in and
re-executes steps [0, k), checking each step's exit code (and output, per --compare)
against the recording. It stops at the first divergence.

With --keep the sandbox is left running and rbx prints how to enter it.`,
		Example: `  rbx replay examples/fix-tests/trajectory.json --to 7 --keep
  rbx replay runs.jsonl --id run-42 --output json | jq .report.steps`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.trajectory = args[0]
			o.toSet = cmd.Flags().Changed("to")
			return runReplay(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.to, "to", 0, "checkpoint k: replay steps [0,k) (default: all steps)")
	f.StringVar(&o.id, "id", "", "trajectory id, when the file holds several (JSONL)")
	f.StringVar(&o.taskPath, "task", "", "task file (default: the one the trajectory names)")
	f.BoolVar(&o.keep, "keep", false, "leave the sandbox running and print how to enter it")
	f.BoolVar(&o.verify, "verify", false, "run the task's verifier after the replay")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	f.StringVar(&o.compare, "compare", string(replayer.CompareNormalized), "output comparison: exact, normalized, normalized_hex (also masks hex ids) or ignore")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	o.rt.register(cmd)
	return cmd
}

// replayResult is the JSON document `rbx replay --output json` prints.
type replayResult struct {
	Runtime string           `json:"runtime"`
	Sandbox string           `json:"sandbox"`
	Kept    bool             `json:"kept"`
	Enter   string           `json:"enter,omitempty"`
	Report  *replayer.Report `json:"report"`
	Verify  *verifier.Result `json:"verify,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func runReplay(ctx context.Context, s Streams, log *slog.Logger, o *replayOptions) (err error) {
	if o.output != "table" && o.output != "json" {
		return usageError("--output %q: expected table or json", o.output)
	}
	tbl := newStepTable(s.Out, o.output == "table")
	b, err := newStack(s, log, "replay", o.rt, withServiceFlags(o.services), withCompare(o.compare), withReplayer(replayer.WithStepHook(tbl.row)))
	if err != nil {
		return err
	}
	in, err := loadTrajectory(o.trajectory, o.id, o.taskPath)
	if err != nil {
		return err
	}
	if err := o.rt.admit(in.task); err != nil {
		return err
	}
	k := o.to
	if !o.toSet {
		k = in.traj.Len()
	}
	if err := replayer.CheckCheckpoint(in.traj, k); err != nil {
		return fmt.Errorf("%s: --to: %w", o.trajectory, err)
	}
	st, err := b.open(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt, rp := st.rt, st.rp
	res := &replayResult{Runtime: rt.Name()}
	if o.keep { // rbx gc and serve start-up spare kept sandboxes
		in.labels = map[string]string{sandbox.LabelKeep: "true"}
	}
	sb, err := startSandbox(ctx, rt, o.rt, in)
	if err != nil {
		return err
	}
	res.Sandbox = sb.ID()
	defer func() {
		if o.keep && ctx.Err() == nil {
			return
		}
		err = errors.Join(err, removeSandbox(ctx, sb))
	}()
	fmt.Fprintf(s.ErrOut, "replaying %s (task %s) to k=%d of %d on %s sandbox %s\n", in.traj.ID, in.task.ID, k, in.traj.Len(), rt.Name(), short(sb.ID()))
	tbl.header()
	res.Report, err = rp.Replay(ctx, sb, in.task, in.traj, k)
	if err == nil && o.verify {
		if res.Verify, err = verifier.Run(ctx, sb, in.task); err == nil && !res.Verify.Passed {
			err = fmt.Errorf("%w: exit %d: %s", errVerifyFailed, res.Verify.ExitCode, lastLines(res.Verify.Output, 5))
		}
	}
	if o.keep && ctx.Err() == nil {
		res.Kept, res.Enter = true, enterHint(sb, in.task)
	}
	if err != nil {
		res.Error = err.Error()
	}
	if o.output == "json" {
		return errors.Join(err, writeJSON(s.Out, res))
	}
	tbl.summary(res)
	return err
}

// startSandbox creates the task's sandbox and copies its files in, through
// the same create-and-prepare path as the pools of serve and probe; on any
// failure it removes what it created.
func startSandbox(ctx context.Context, rt sandbox.Runtime, f runtimeFlags, in *loaded) (sandbox.Sandbox, error) {
	// The runtime streams the build's own output (its progress writer).
	if err := buildTaskImages(ctx, rt, io.Discard, in.task); err != nil {
		return nil, err
	}
	if err := ensureImage(ctx, rt, f, in.task.Image); err != nil {
		return nil, err
	}
	spec := provision.Spec(in.task)
	for k, v := range in.labels {
		spec.Labels[k] = v
	}
	tmpl := pool.Template{Key: in.task.ID, Spec: spec,
		Prepare: func(ctx context.Context, sb sandbox.Sandbox) error { return provision.Prepare(ctx, sb, in.task) }}
	sb, err := tmpl.Create(ctx, rt)
	if err != nil {
		return nil, fmt.Errorf("create sandbox for task %q: %w", in.task.ID, err)
	}
	return sb, nil
}

func parseServices(list []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range list {
		name, url, ok := strings.Cut(s, "=")
		if !ok || name == "" || url == "" {
			return nil, usageError("--service %q: expected NAME=URL", s)
		}
		m[name] = url
	}
	return m, nil
}

// enterHint tells the user how to get a shell in a kept sandbox.
func enterHint(sb sandbox.Sandbox, tk *task.Task) string {
	if l, ok := sb.(interface{ Root() string }); ok { // the local runtime
		return fmt.Sprintf("cd %s && bash   # unisolated: RBX_ROOT=%s", path.Join(l.Root(), provision.Spec(tk).Workdir), l.Root())
	}
	shell := "bash"
	if strings.Contains(tk.Image, "busybox") {
		shell = "sh"
	}
	if e, ok := sb.(interface{ EnterCommand(shell string) string }); ok { // kubernetes
		return e.EnterCommand(shell)
	}
	return fmt.Sprintf("docker exec -it %s %s", short(sb.ID()), shell)
}

func short(id string) string {
	if len(id) > 12 && !strings.Contains(id, "/") && !strings.HasPrefix(id, "local") {
		return id[:12]
	}
	return id
}
