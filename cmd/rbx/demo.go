package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/verifier"
)

// demoOptions are the flags of `rbx demo`.
type demoOptions struct {
	rt           runtimeFlags
	output       string
	replayOnly   bool
	episodes     int
	learningRate float64
	plot         string
}

func newDemoCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run rbx end to end on the bundled examples: replay, prefilter, a served curriculum",
		Long: `Demo runs rbx on the examples embedded in the binary, in stages:

  replay     for each example and several checkpoints k: replay steps [0,k) in a fresh
             sandbox, run the reference suffix [k,T) and the verifier, which must pass
  prefilter  every example replayed end to end twice in fresh sandboxes and verified
  serve      rbx serve in-process on loopback with a rollback curriculum (and its
             dashboard), and a small learning policy — a softmax over candidate actions
             per step, learning from the verifier's reward alone — trained on
             run-sh-path twice for the same episode budget: from k = 0 only, and from
             the checkpoints the curriculum serves; then each final policy from k = 0

The OTP service the deploy-otp example needs is started on loopback.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), s, logger(), o) },
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table or json (json: the replay stage only)")
	cmd.Flags().BoolVar(&o.replayOnly, "replay-only", false, "run only the replay stage")
	cmd.Flags().IntVar(&o.episodes, "episodes", 160, "episodes per training run of the serve stage")
	cmd.Flags().Float64Var(&o.learningRate, "learning-rate", 1, "the learning policy's REINFORCE step size")
	cmd.Flags().StringVar(&o.plot, "plot", "rbx-demo-learn.png", `PNG of both training runs ("": none)`)
	o.rt.register(cmd)
	return cmd
}

// demoRow is one (example, checkpoint) result.
type demoRow struct {
	Example string        `json:"example"`
	K       int           `json:"k"`
	T       int           `json:"steps_total"`
	Create  time.Duration `json:"create_ns"`
	Reset   time.Duration `json:"reset_ns"`
	Suffix  time.Duration `json:"suffix_ns"`
	Passed  bool          `json:"verifier_passed"`
	Error   string        `json:"error,omitempty"`
}

func runDemo(ctx context.Context, s Streams, log *slog.Logger, o *demoOptions) (err error) {
	if o.output != "table" && o.output != "json" {
		return usageError("--output %q: expected table or json", o.output)
	}
	if o.episodes < 1 {
		return usageError("--episodes %d: expected ≥ 1", o.episodes)
	}
	if !(o.learningRate > 0) {
		return usageError("--learning-rate %v: expected > 0", o.learningRate)
	}
	dir, err := os.MkdirTemp("", "rbx-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := examples.Extract(dir); err != nil {
		return fmt.Errorf("extract examples: %w", err)
	}
	otpURL, stopOTP, err := startOTP(filepath.Join(dir, "deploy-otp", "task.yaml"))
	if err != nil {
		return err
	}
	defer stopOTP()
	// The serve stage recycles ended episodes' sandboxes in place when the
	// agent is beside the binary (make build puts it there): hundreds of
	// episodes would otherwise cost a container each.
	if path, err := recycle.FindAgent(); err == nil {
		o.rt.agent = path
	}
	st, err := openStack(ctx, s, log, "demo", o.rt, nil, withServices(map[string]string{"otp": otpURL}))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close(ctx)) }()
	rt, rp := st.rt, st.rp
	paths, err := fs.Glob(os.DirFS(dir), "*/trajectory.json")
	if err != nil {
		return err
	}
	var rows []demoRow
	const rowFmt = "%-12s %3s %3s %12s %12s %12s  %s\n"
	if o.output == "table" {
		fmt.Fprintf(s.Out, rowFmt, "EXAMPLE", "K", "T", "CREATE", "RESET TO K", "SUFFIX K..T", "VERIFIER")
	}
	for _, p := range paths {
		in, err := loadTrajectory(filepath.Join(dir, p), "", "")
		if err != nil {
			return err
		}
		fmt.Fprintf(s.ErrOut, "demo: %s (%d steps) on %s\n", in.traj.ID, in.traj.Len(), rt.Name())
		for _, k := range demoCheckpoints(in) {
			row := demoOne(ctx, rt, rp, in, o, s, log, k)
			rows = append(rows, row)
			if o.output == "table" {
				verdict := "passed"
				if !row.Passed {
					verdict = "FAILED: " + row.Error
				}
				fmt.Fprintf(s.Out, rowFmt, in.task.ID, fmt.Sprint(k), fmt.Sprint(row.T), round(row.Create), round(row.Reset), round(row.Suffix), verdict)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if o.output == "json" {
		err = writeJSON(s.Out, rows)
	}
	for _, r := range rows {
		if !r.Passed {
			err = errors.Join(err, fmt.Errorf("%w: %s from k=%d: %s", errVerifyFailed, r.Example, r.K, r.Error))
		}
	}
	if err != nil || o.output == "json" || o.replayOnly {
		return err
	}
	if err := demoPrefilter(ctx, s, rt, rp, dir); err != nil {
		return err
	}
	return demoServe(ctx, s, log, st, dir, "run-sh-path", o)
}

// demoCheckpoints picks the start, a middle checkpoint and the last servable one.
func demoCheckpoints(in *loaded) []int {
	t := in.traj.Len()
	var ks []int
	for _, k := range []int{0, t / 2, t - 1, t} {
		for k > 0 && !in.traj.ValidCheckpoint(k) {
			k--
		}
		if len(ks) == 0 || ks[len(ks)-1] < k {
			ks = append(ks, k)
		}
	}
	return ks
}

// demoOne resets a fresh sandbox to k, plays the reference suffix and verifies.
func demoOne(ctx context.Context, rt sandbox.Runtime, rp *replayer.Replayer, in *loaded, o *demoOptions, s Streams, log *slog.Logger, k int) (row demoRow) {
	row = demoRow{Example: in.task.ID, K: k, T: in.traj.Len()}
	fail := func(err error) demoRow { row.Error = err.Error(); return row }
	start := time.Now()
	sb, err := startSandbox(ctx, rt, o.rt, in)
	row.Create = time.Since(start)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := removeSandbox(ctx, sb); err != nil {
			row.Error = errors.Join(errors.New(row.Error), err).Error()
		}
	}()
	run := rp.Start(sb, in.task, in.traj)
	rep, err := run.To(ctx, k)
	if err != nil {
		return fail(err)
	}
	row.Reset = rep.Duration
	if rep, err = run.To(ctx, in.traj.Len()); err != nil {
		return fail(err)
	}
	row.Suffix = rep.Duration
	v, err := verifier.Run(ctx, sb, in.task)
	if err != nil {
		return fail(err)
	}
	row.Passed = v.Passed
	if !v.Passed {
		return fail(fmt.Errorf("exit %d: %s", v.ExitCode, lastLines(v.Output, 3)))
	}
	return row
}

// startOTP serves the deploy-otp example's OTP service on a loopback port,
// with the secret and period its task declares.
func startOTP(taskPath string) (string, func(), error) {
	in, err := loadTaskEnv(taskPath)
	if err != nil {
		return "", nil, err
	}
	period, err := time.ParseDuration(in["OTP_PERIOD"] + "s")
	if err != nil {
		return "", nil, fmt.Errorf("%s: env.OTP_PERIOD %q: expected seconds", taskPath, in["OTP_PERIOD"])
	}
	srv, err := otp.NewServer(in["OTP_SECRET"], period)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("otp service: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}
