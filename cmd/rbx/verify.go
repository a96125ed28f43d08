package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/verifier"
)

// verifyOptions are the flags of `rbx verify`.
type verifyOptions struct {
	replay  replayOptions
	sandbox string
}

func newVerifyCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify TRAJECTORY|TASK",
		Short: "Run a task's verifier in a sandbox",
		Long: `Verify runs the task's verifier (its files are copied in only now) and reports
pass or fail; the exit status is 4 when the verifier rejects the state.

  rbx verify TRAJECTORY [--to k]   replay steps [0,k) (default: all) in a fresh sandbox, then verify
  rbx verify TASK                  verify the task's initial state in a fresh sandbox
  rbx verify TASK --sandbox ID     verify a running sandbox, e.g. one kept by rbx replay --keep`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.replay.toSet = cmd.Flags().Changed("to")
			return runVerify(cmd.Context(), s, logger(), o, args[0])
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.replay.to, "to", 0, "checkpoint k to replay to before verifying (default: all steps)")
	f.StringVar(&o.replay.id, "id", "", "trajectory id, when the file holds several (JSONL)")
	f.StringVar(&o.sandbox, "sandbox", "", "verify this existing sandbox instead of a fresh one")
	f.StringVarP(&o.replay.output, "output", "o", "table", "output format: table or json")
	f.StringArrayVar(&o.replay.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	o.replay.rt.register(cmd)
	return cmd
}

func runVerify(ctx context.Context, s Streams, log *slog.Logger, o *verifyOptions, path string) (err error) {
	isTask, err := looksLikeTask(path)
	if err != nil {
		return err
	}
	if !isTask {
		if o.sandbox != "" {
			return usageError("--sandbox takes a task file, not a trajectory (%s)", path)
		}
		r := o.replay
		r.trajectory, r.verify, r.compare = path, true, "normalized"
		return runReplay(ctx, s, log, &r)
	}
	tk, err := task.Load(path)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if o.sandbox == "" { // a sandbox opened by id exists already
		if err := o.replay.rt.admit(tk); err != nil {
			return err
		}
	}
	st, err := openStack(ctx, s, log, "verify", o.replay.rt, nil) // the runtime is all verify uses
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt := st.rt
	var sb sandbox.Sandbox
	if o.sandbox != "" {
		if sb, err = rt.Open(ctx, o.sandbox); err != nil {
			return fmt.Errorf("open sandbox %q: %w", o.sandbox, err)
		}
	} else {
		if sb, err = startSandbox(ctx, rt, o.replay.rt, &loaded{task: tk}); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, removeSandbox(ctx, sb)) }()
	}
	res, err := verifier.Run(ctx, sb, tk)
	if err != nil {
		return err
	}
	if o.replay.output == "json" {
		err = writeJSON(s.Out, res)
	} else {
		(&stepTable{w: s.Out, enabled: true}).summary(&replayResult{Verify: res})
	}
	if err == nil && !res.Passed {
		err = fmt.Errorf("%w: task %s, exit %d", errVerifyFailed, tk.ID, res.ExitCode)
	}
	return err
}

// looksLikeTask tells a task file from a trajectory file: YAML is always a
// task, JSONL always trajectories, and a JSON object with "steps" a trajectory.
func looksLikeTask(path string) (bool, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true, nil
	case ".jsonl":
		return false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, usageError("%s: %v", path, err)
	}
	var probe struct {
		Steps json.RawMessage `json:"steps"`
	}
	if json.Unmarshal(data, &probe) == nil && probe.Steps == nil {
		return true, nil
	}
	return false, nil
}
