package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/intervene"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/server/client"
	"github.com/rbx-sandbox/rbx/task"
)

// interveneOptions are the flags of `rbx intervene`: the policy's as in
// probe, the intervener's under iv.
type interveneOptions struct {
	arg, trajectory, out, output  string
	tasks                         string
	server, serverToken           string
	pol, iv                       probeOptions
	k, rollouts, budget, attempts int
	concurrency, maxSteps         int
	maxShare                      float64
	seed                          uint64
	episodeTimeout                time.Duration
	services                      []string
	rt                            runtimeFlags
	capacity                      capacityFlags
}

func newInterveneCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &interveneOptions{}
	cmd := &cobra.Command{
		Use:   "intervene TASK-ID|PATH --policy P --intervener I",
		Short: "Rollout-time intervention: turn a policy's failed rollouts into verified successes with a marked intervened share",
		Long: `Intervene rolls a policy out from checkpoint k of a task's reference trajectory. For every
rollout that fails the verifier, it scores the task's rubric after each of the rollout's
actions in scratch sandboxes (the rollout's own sandbox is never touched), picks the fork
point (the first action that lowered the evidence; without a drop, the first state where
the evidence reached its maximum), forks there, lets the intervener act for at most
--budget actions with the rubric evidence in view, hands control back to the policy, and
verifies. Each rescued trajectory keeps its intervened mask and shares of steps and tokens;
the shift filter drops those above --max-share. See docs/rti.md.

Policies and interveners: expert, noisy (--noise), openai (--base-url, --model), cmd (--cmd);
the intervener's flags are --intervener-noise, --intervener-base-url, --intervener-model,
--intervener-cmd (the openai ones default to the policy's). --out DIR writes the kept
trajectories natively (trajectories.jsonl), as OpenAI chats with a per-message "intervened"
flag (openai.jsonl) and as ATIF (atif.jsonl), and the dropped ones (dropped.jsonl).`,
		Example: `  rbx intervene run-sh-path --tasks examples --policy noisy --noise 9=1 --intervener expert --checkpoint 4 --out rti/
  rbx intervene examples/run-sh-path --policy noisy --noise 9=1 --intervener expert
  rbx intervene task.yaml --policy openai --base-url http://127.0.0.1:8000/v1 --model qwen \
      --intervener openai --intervener-model big --rollouts 16 --output json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.arg = args[0]
			return runIntervene(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tasks, "tasks", "", "directory a task id is looked up in (default $RBX_TASKS, else the current directory)")
	f.StringVar(&o.trajectory, "trajectory", "", "trajectory id (in a JSONL file, or among the task's), or a trajectory file for a task")
	f.StringVar(&o.pol.policy, "policy", "", "the policy rolled out: expert, noisy, openai or cmd (required)")
	f.StringVar(&o.iv.policy, "intervener", "expert", "the intervener: expert, noisy, openai or cmd")
	f.IntVarP(&o.k, "checkpoint", "k", 0, "checkpoint the rollouts start from")
	f.IntVarP(&o.rollouts, "rollouts", "r", 8, "rollouts of the policy")
	f.IntVar(&o.budget, "budget", 4, "most actions the intervener takes per intervention")
	f.IntVar(&o.attempts, "attempts", 3, "interventions tried per failed rollout, each forking --budget actions earlier than the last")
	f.Float64Var(&o.maxShare, "max-share", 0.5, "shift filter: drop rescued trajectories whose intervened share of steps or tokens is above this")
	f.IntVarP(&o.concurrency, "concurrency", "c", 2, "rollouts handled at once")
	f.IntVar(&o.maxSteps, "max-steps", 0, "actions per agent turn (default: openai 30, others 4·(T−k)+16)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of stochastic policies (noisy)")
	f.DurationVar(&o.episodeTimeout, "episode-timeout", 0, "bound on the acting part of each sandbox's episode (default: the task's)")
	f.StringVar(&o.out, "out", "", "write the trajectories into DIR")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	f.StringVar(&o.server, "server", "", "run the episodes on this rbx serve (http(s)://HOST:PORT) instead of in-process: rollouts are resets, interventions forks, evidence its evidence route")
	f.StringVar(&o.serverToken, "server-token-file", "", "--server: file holding its bearer token")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	f.StringVar(&o.pol.noise, "noise", "", `noisy policy: corruption probability per step, "j=p,..." or a file`)
	f.StringVar(&o.pol.baseURL, "base-url", "", "openai policy: the endpoint, up to /v1")
	f.StringVar(&o.pol.model, "model", "", "openai policy: the model name")
	f.StringVar(&o.pol.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "openai: environment variable holding the API key")
	f.StringVar(&o.pol.command, "cmd", "", "cmd policy: the command line, run by /bin/sh -c")
	f.StringVar(&o.iv.noise, "intervener-noise", "", "noisy intervener: corruption probabilities")
	f.StringVar(&o.iv.baseURL, "intervener-base-url", "", "openai intervener: the endpoint (default --base-url)")
	f.StringVar(&o.iv.model, "intervener-model", "", "openai intervener: the model name (default --model)")
	f.StringVar(&o.iv.command, "intervener-cmd", "", "cmd intervener: the command line, run by /bin/sh -c")
	o.rt.register(cmd)
	o.capacity.register(cmd.Flags())
	return cmd
}

// policies builds the policy and the intervener from the flags.
func (o *interveneOptions) policies(s Streams, log *slog.Logger) (policy.Policy, policy.Policy, error) {
	if o.pol.policy == "" {
		return nil, nil, usageError("--policy: required (expert, noisy, openai or cmd)")
	}
	if o.output != "table" && o.output != "json" {
		return nil, nil, usageError("--output %q: expected table or json", o.output)
	}
	o.pol.maxSteps, o.iv.maxSteps, o.iv.apiKeyEnv = o.maxSteps, o.budget, o.pol.apiKeyEnv
	if o.iv.baseURL == "" {
		o.iv.baseURL = o.pol.baseURL
	}
	if o.iv.model == "" {
		o.iv.model = o.pol.model
	}
	pol, err := o.pol.newPolicy(s, log)
	if err != nil {
		return nil, nil, err
	}
	iv, err := o.iv.newPolicy(s, log)
	if err != nil {
		return nil, nil, fmt.Errorf("--intervener: %w", err)
	}
	return pol, iv, nil
}

func (o *interveneOptions) runnerOptions(s Streams, log *slog.Logger) []intervene.Option {
	opts := []intervene.Option{intervene.WithCheckpoint(o.k), intervene.WithRollouts(o.rollouts), intervene.WithBudget(o.budget), intervene.WithAttempts(o.attempts),
		intervene.WithMaxShare(o.maxShare), intervene.WithConcurrency(o.concurrency), intervene.WithSeed(o.seed), intervene.WithLogger(log),
		intervene.WithProgress(func(r intervene.Rollout) {
			fmt.Fprintf(s.ErrOut, "rollout %d: %s", r.Index, r.Outcome)
			if r.ForkT >= 0 {
				fmt.Fprintf(s.ErrOut, " (fork at t=%d, %d intervened of %d, share %.2f, attempt %d)", r.ForkT, r.IntervenerSteps, len(r.Mask), r.Share, r.Attempts)
			}
			if r.Error != "" {
				fmt.Fprintf(s.ErrOut, ": %s", r.Error)
			}
			fmt.Fprintln(s.ErrOut)
		})}
	if o.maxSteps > 0 {
		opts = append(opts, intervene.WithMaxSteps(o.maxSteps))
	}
	if o.episodeTimeout > 0 {
		opts = append(opts, intervene.WithEpisodeTimeout(o.episodeTimeout))
	}
	return opts
}

func runIntervene(ctx context.Context, s Streams, log *slog.Logger, o *interveneOptions) (err error) {
	s.ErrOut = &lockedWriter{w: s.ErrOut}
	pol, iv, err := o.policies(s, log)
	if err != nil {
		return err
	}
	opts := o.runnerOptions(s, log)
	if _, err := intervene.New(nil, pol, iv, opts...); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err) // flag values out of range
	}
	in, err := locateTask(o.arg, o.trajectory, tasksDir(o.tasks))
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	ld, err := loadTrajectory(in.TrajectoryPath, in.ID, in.TaskPath)
	if err != nil {
		return err
	}
	if o.server != "" {
		return runInterveneServed(ctx, s, o, ld, pol, iv, opts)
	}
	if err := o.rt.admit(ld.task); err != nil {
		return err
	}
	st, err := openStack(ctx, s, log, "intervene", o.rt, []*task.Task{ld.task},
		withServiceFlags(o.services), episodeOptions(&o.capacity, o.concurrency))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt, rs := st.rt, st.rs
	runner, err := intervene.New(rs, pol, iv, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "intervening on %s (task %s, %d steps) from k=%d: policy %s, intervener %s (budget %d), %d rollouts on %s\n",
		ld.traj.ID, ld.task.ID, ld.traj.Len(), o.k, pol.Name(), iv.Name(), o.budget, o.rollouts, rt.Name())
	res, runErr := runner.Run(ctx, ld.task, ld.traj)
	if res == nil {
		return fmt.Errorf("%w: %w", errUsage, runErr)
	}
	return errors.Join(runErr, writeIntervene(s, o, res))
}

// runInterveneServed runs the loop on an rbx serve that serves the task.
func runInterveneServed(ctx context.Context, s Streams, o *interveneOptions, ld *loaded, pol, iv policy.Policy, opts []intervene.Option) error {
	var copts []client.Option
	if o.serverToken != "" {
		b, err := os.ReadFile(o.serverToken)
		if err != nil {
			return usageError("--server-token-file: %v", err)
		}
		copts = append(copts, client.WithToken(strings.TrimSpace(string(b))))
	}
	c, err := client.New(o.server, copts...)
	if err != nil {
		return usageError("--server: %v", err)
	}
	runner, err := intervene.NewOn(rollout.NewServed(c), pol, iv, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "intervening on %s (task %s, %d steps) from k=%d through %s: policy %s, intervener %s (budget %d), %d rollouts\n",
		ld.traj.ID, ld.task.ID, ld.traj.Len(), o.k, o.server, pol.Name(), iv.Name(), o.budget, o.rollouts)
	res, runErr := runner.Run(ctx, ld.task, ld.traj)
	if res == nil {
		return fmt.Errorf("%w: %w", errUsage, runErr)
	}
	return errors.Join(runErr, writeIntervene(s, o, res))
}

func writeIntervene(s Streams, o *interveneOptions, res *intervene.Result) error {
	var errs []error
	if o.out != "" {
		if err := intervene.WriteFiles(o.out, res); err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(s.ErrOut, "wrote %d kept and %d dropped trajectories to %s\n", res.Kept, res.Dropped, o.out)
		}
	}
	if o.output == "json" {
		errs = append(errs, writeJSON(s.Out, res))
	} else {
		errs = append(errs, intervene.WriteTable(s.Out, res))
	}
	if res.Errors == res.Rollouts {
		errs = append(errs, fmt.Errorf("every rollout failed to run (first: %s)", res.Rows[0].Error))
	}
	return errors.Join(errs...)
}
