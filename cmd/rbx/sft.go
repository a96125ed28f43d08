package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/sft"
	"github.com/rbx-sandbox/rbx/curriculum/store"
)

// sftOptions are the flags of `rbx sft export`.
type sftOptions struct {
	trajectory, id, taskFile string
	from, to                 int
	fromSet, toSet           bool
	out                      string
	state, taskID            string
	stuckAfter               int
}

func newSFTCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sft",
		Short: "Supervised fine-tuning examples for checkpoints where rollback is stuck",
		Args:  exactArgs(0),
	}
	o := &sftOptions{}
	export := &cobra.Command{
		Use:   "export",
		Short: "Write prefix messages → reference action examples for a segment as JSONL",
		Long: `Export writes one supervised example per reference step in [from, to): the chat prefix up
to that step (the trajectory's recorded messages, or messages synthesised from the task
and the recorded actions and observations) followed by the reference action as an
OpenAI assistant tool call, in the OpenAI fine-tuning chat format.

The segment is --from/--to, or, with --state and --task, starts at the lowest checkpoint
the curriculum state database flags as stuck (p̂ = 0 for --stuck-after episodes).`,
		Example: `  rbx sft export --trajectory examples/fix-tests/trajectory.json --from 9 --out fix.jsonl
  rbx sft export --trajectory ref.json --state state.db --task fix-tests`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.fromSet, o.toSet = cmd.Flags().Changed("from"), cmd.Flags().Changed("to")
			return runSFTExport(cmd.Context(), s, logger(), o)
		},
	}
	f := export.Flags()
	f.StringVar(&o.trajectory, "trajectory", "", "reference trajectory file (JSON or JSONL)")
	f.StringVar(&o.id, "id", "", "trajectory id, when the file holds several (JSONL)")
	f.StringVar(&o.taskFile, "task-file", "", "task file (default: the one the trajectory names)")
	f.IntVar(&o.from, "from", 0, "first step of the segment (the stuck checkpoint k)")
	f.IntVar(&o.to, "to", 0, "end of the segment, exclusive (default T)")
	f.StringVarP(&o.out, "out", "O", "", "output JSONL file (default stdout)")
	f.StringVar(&o.state, "state", "", "curriculum state database: take --from from its stuck checkpoints")
	f.StringVar(&o.taskID, "task", "", "task id in --state (default: the trajectory's task id)")
	f.IntVar(&o.stuckAfter, "stuck-after", 32, "consecutive failures that flag a checkpoint as stuck (with --state)")
	cmd.AddCommand(export)
	return cmd
}

func runSFTExport(ctx context.Context, s Streams, log *slog.Logger, o *sftOptions) (err error) {
	if o.trajectory == "" {
		return usageError("--trajectory is required")
	}
	if o.state == "" && !o.fromSet {
		return usageError("give --from k, or --state with the stuck checkpoints")
	}
	in, err := loadTrajectory(o.trajectory, o.id, o.taskFile)
	if err != nil {
		return err
	}
	to := in.traj.Len()
	if o.toSet {
		to = o.to
	}
	from := o.from
	if o.state != "" && !o.fromSet {
		if from, err = stuckFrom(ctx, s, o, in.task.ID); err != nil {
			return err
		}
	}
	exs, err := sft.Examples(in.task, in.traj, from, to)
	if errors.Is(err, sft.ErrRange) {
		return usageError("%s: %w", o.trajectory, err)
	} else if err != nil {
		return err
	}
	w := s.Out
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return fmt.Errorf("sft export: %w", err)
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		w = f
	}
	n, err := sft.Write(w, exs)
	log.Debug("sft export", "trajectory", in.traj.ID, "from", from, "to", to)
	fmt.Fprintf(s.ErrOut, "wrote %d examples for steps [%d, %d) of %s\n", n, from, to, in.traj.ID)
	return err
}

// stuckFrom returns the lowest checkpoint the state database flags as stuck.
func stuckFrom(ctx context.Context, s Streams, o *sftOptions, defaultID string) (int, error) {
	if _, err := os.Stat(o.state); err != nil {
		return 0, usageError("--state: %w", err)
	}
	id := o.taskID
	if id == "" {
		id = defaultID
	}
	e, st, err := store.OpenEngine(ctx, o.state, nil, curriculum.WithStuckAfter(o.stuckAfter))
	if err != nil {
		return 0, err
	}
	defer st.Close()
	stuck, err := e.Stuck(id)
	if errors.Is(err, curriculum.ErrUnknownTask) {
		return 0, usageError("--state %s: %w", o.state, err)
	} else if err != nil {
		return 0, err
	}
	if len(stuck) == 0 {
		return 0, usageError("--state %s: task %q has no stuck checkpoint (p̂ = 0 for %d episodes)", o.state, id, o.stuckAfter)
	}
	fmt.Fprintf(s.ErrOut, "task %s: stuck at checkpoints %v\n", id, stuck)
	return slices.Min(stuck), nil
}
