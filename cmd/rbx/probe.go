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

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/task"
)

// probeOptions are the flags of `rbx probe`.
type probeOptions struct {
	arg, trajectory, policy, checkpoints, mode, chart, output string
	rollouts, concurrency, anchors, maxSteps                  int
	threshold                                                 float64
	seed                                                      uint64
	episodeTimeout                                            time.Duration
	noise, baseURL, model, apiKeyEnv, command                 string
	tasks, server, tokenFile, caFile                          string
	services                                                  []string
	rt                                                        runtimeFlags
	prefix                                                    prefixFlags
	capacity                                                  capacityFlags
}

func newProbeCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &probeOptions{}
	cmd := &cobra.Command{
		Use:   "probe TASK-ID|PATH",
		Short: "Estimate a policy's success rate from each checkpoint and locate its bottleneck",
		Long: `Probe resets sandboxes to checkpoints k of a task's reference trajectory, lets a policy
act until it is done (R rollouts per checkpoint), runs the task's verifier, and prints
p̂(k) with Wilson confidence intervals. The bottleneck is the rollback-curriculum paper's rule: scanning from the
end towards the start, the first checkpoint whose p̂ falls below θ.

Policies: expert (the reference suffix; every valid checkpoint must score 1.0, else the
exit status is 4), noisy (the reference with steps corrupted: --noise "4=0.9" or a file),
openai (an agent loop against an OpenAI-compatible endpoint: --base-url, --model, the key
from $OPENAI_API_KEY), cmd (an external program speaking JSON lines: --cmd).
Modes: sweep (every selected checkpoint) and search (anchors spread uniformly, then the
domain narrowed around the collapse: fewer rollouts for the same bottleneck).

The argument is a task id, looked up under --tasks DIR (default $RBX_TASKS, else the
current directory; its reference is the task's first valid trajectory, as rbx serve
picks it), or a path: a task directory or file, or a trajectory file.
With --server URL the probe runs through a running rbx serve: its reference, its warm
pool and its verifier, at explicit checkpoints whose outcomes do not feed its curriculum
(no local runtime is used).`,
		Example: `  rbx probe run-sh-path --tasks examples --policy expert --rollouts 1
  rbx probe run-sh-path --server http://127.0.0.1:8700 --rollouts 4
  rbx probe examples/run-sh-path --policy expert --rollouts 1
  rbx probe examples/run-sh-path/trajectory.json --policy noisy --noise 4=0.9 --rollouts 16 --chart p.png
  rbx probe task.yaml --policy openai --base-url http://127.0.0.1:8000/v1 --model qwen --mode search
  rbx probe ref.jsonl --trajectory ep-17 --policy cmd --cmd "python3 agent.py" --output json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.arg = args[0]
			return runProbe(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.trajectory, "trajectory", "", "trajectory id (in a JSONL file, or among the task's), or a trajectory file for a task")
	f.StringVar(&o.tasks, "tasks", "", "directory a task id is looked up in (default $RBX_TASKS, else the current directory)")
	f.StringVar(&o.server, "server", "", "probe through the rbx serve at this URL (its reference, pool and verifier; its curriculum is not fed)")
	f.StringVar(&o.tokenFile, "token-file", "", "with --server: file holding the server's bearer token")
	f.StringVar(&o.caFile, "ca-file", "", "with --server over HTTPS: PEM certificate or CA to trust")
	f.StringVar(&o.policy, "policy", "expert", "policy: expert, noisy, openai or cmd")
	f.StringVar(&o.checkpoints, "checkpoints", "all", "checkpoints: all (valid k < T), every:N, or a list such as 0,4,8-11")
	f.StringVar(&o.mode, "mode", probe.ModeSweep, "sweep or search")
	f.IntVarP(&o.rollouts, "rollouts", "r", 8, "rollouts per checkpoint, R")
	f.Float64Var(&o.threshold, "threshold", 0.5, "θ: the bottleneck is the last checkpoint with p̂ < θ")
	f.IntVarP(&o.concurrency, "concurrency", "c", 4, "rollouts running at once")
	f.IntVar(&o.anchors, "anchors", 8, "search mode: anchors per round")
	f.Uint64Var(&o.seed, "seed", 1, "seed of stochastic policies (noisy)")
	f.StringVar(&o.chart, "chart", "", "draw p̂(k) to FILE.png or FILE.svg")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	f.StringVar(&o.noise, "noise", "", `noisy: corruption probability per step, "j=p,..." ("*=p" for the rest) or a file`)
	f.StringVar(&o.baseURL, "base-url", "", "openai: the endpoint, up to /v1")
	f.StringVar(&o.model, "model", "", "openai: the model name")
	f.StringVar(&o.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "openai: environment variable holding the API key")
	f.IntVar(&o.maxSteps, "max-steps", 0, "actions per episode (default: openai 30, others 4·(T−k)+16)")
	f.DurationVar(&o.episodeTimeout, "episode-timeout", 0, "bound on the acting part of an episode (default: the task's)")
	o.prefix.register(f)
	f.StringVar(&o.command, "cmd", "", `cmd: the command line, run by /bin/sh -c, e.g. "python3 agent.py"`)
	o.rt.register(cmd)
	o.capacity.register(cmd.Flags())
	return cmd
}

// newPolicy builds the chosen policy from the flags.
func (o *probeOptions) newPolicy(s Streams, log *slog.Logger) (policy.Policy, error) {
	switch o.policy {
	case "expert":
		return policy.Expert{}, nil
	case "noisy":
		if o.noise == "" {
			return nil, usageError(`--policy noisy needs --noise, e.g. --noise 4=0.9`)
		}
		n, err := policy.ParseNoise(o.noise)
		if err != nil {
			return nil, usageError("--noise: %w", err)
		}
		return policy.Noisy{Noise: n}, nil
	case "openai":
		opts := []policy.OpenAIOption{policy.WithAPIKey(os.Getenv(o.apiKeyEnv)), policy.WithOpenAILogger(log)}
		if o.maxSteps > 0 {
			opts = append(opts, policy.WithMaxSteps(o.maxSteps))
		}
		p, err := policy.NewOpenAI(o.baseURL, o.model, opts...)
		if err != nil {
			return nil, usageError("--policy openai: %w", err)
		}
		return p, nil
	case "cmd":
		if strings.TrimSpace(o.command) == "" {
			return nil, usageError(`--policy cmd needs --cmd "program args"`)
		}
		// Through sh, so quoting and pipes in --cmd work as typed.
		return policy.Cmd{Argv: []string{"/bin/sh", "-c", o.command}, Stderr: s.ErrOut}, nil
	}
	return nil, usageError("--policy %q: expected expert, noisy, openai or cmd", o.policy)
}

func (o *probeOptions) proberOptions(s Streams, log *slog.Logger) ([]probe.Option, error) {
	if o.output != "table" && o.output != "json" {
		return nil, usageError("--output %q: expected table or json", o.output)
	}
	sel, err := probe.ParseCheckpoints(o.checkpoints)
	if err != nil {
		return nil, usageError("--checkpoints: %w", err)
	}
	opts := []probe.Option{probe.WithCheckpoints(sel), probe.WithMode(o.mode), probe.WithRollouts(o.rollouts),
		probe.WithThreshold(o.threshold), probe.WithConcurrency(o.concurrency), probe.WithAnchors(o.anchors),
		probe.WithSeed(o.seed), probe.WithLogger(log), probe.WithProgress(func(p probe.Point) {
			fmt.Fprintf(s.ErrOut, "k=%-4d %2d/%-2d succeeded  %s\n", p.K, p.Successes, p.N+p.Errors, probe.Bar(p.PHat, o.threshold, p.Known()))
		})}
	if o.maxSteps > 0 && o.policy != "openai" {
		opts = append(opts, probe.WithMaxSteps(o.maxSteps))
	}
	if o.episodeTimeout > 0 {
		opts = append(opts, probe.WithEpisodeTimeout(o.episodeTimeout))
	}
	return opts, nil
}

func runProbe(ctx context.Context, s Streams, log *slog.Logger, o *probeOptions) (err error) {
	s.ErrOut = &lockedWriter{w: s.ErrOut} // progress and concurrent policies' stderr
	opts, err := o.proberOptions(s, log)
	if err != nil {
		return err
	}
	pol, err := o.newPolicy(s, log)
	if err != nil {
		return err
	}
	if _, err := probe.New(nil, pol, opts...); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err) // flag values out of range
	}
	if o.server != "" {
		return runProbeServer(ctx, s, o, pol, opts)
	}
	in, err := o.locate()
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	ld, err := loadTrajectory(in.TrajectoryPath, in.ID, in.TaskPath)
	if err != nil {
		return err
	}
	if err := o.rt.admit(ld.task); err != nil {
		return err
	}
	st, err := openStack(ctx, s, log, "probe", o.rt, []*task.Task{ld.task}, withPrefixCache(&o.prefix, o.concurrency),
		withServiceFlags(o.services), episodeOptions(&o.capacity, o.concurrency))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt, rs := st.rt, st.rs
	pr, err := probe.New(rs, pol, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "probing %s (task %s, %d steps) with the %s policy on %s: %s, %d rollouts per checkpoint, concurrency %d\n",
		ld.traj.ID, ld.task.ID, ld.traj.Len(), pol.Name(), rt.Name(), o.mode, o.rollouts, o.concurrency)
	res, runErr := pr.Run(ctx, ld.task, ld.traj)
	if res == nil {
		return runErr
	}
	return errors.Join(runErr, writeProbe(s, o, res))
}

// writeProbe prints the result and the chart; with the expert policy a
// checkpoint below 1.0 is a broken checkpoint, reported as a verifier
// failure.
func writeProbe(s Streams, o *probeOptions, res *probe.Result) error {
	var errs []error
	if o.output == "json" {
		errs = append(errs, writeJSON(s.Out, res))
	} else {
		errs = append(errs, probe.WriteTable(s.Out, res))
	}
	if o.chart != "" {
		if err := probe.WriteChart(o.chart, res); err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(s.ErrOut, "wrote chart %s\n", o.chart)
		}
	}
	if o.policy == "expert" {
		for _, p := range res.Points {
			if p.PHat < 1 || p.Errors > 0 {
				errs = append(errs, fmt.Errorf("%w: the expert scores %d/%d from k=%d (%d errors): the checkpoint is not valid", errVerifyFailed, p.Successes, p.N, p.K, p.Errors))
			}
		}
	}
	return errors.Join(errs...)
}
