package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// Streams are the command's standard streams: data goes to Out, progress,
// warnings and logs to ErrOut, so `rbx ... --output json | jq` always works.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Exit codes, decided in one place (exitCode).
const (
	exitOK          = 0
	exitError       = 1 // anything unclassified
	exitUsage       = 2 // bad flags or bad input files
	exitDiverged    = 3 // a replay diverged from its recording
	exitVerifyFail  = 4 // the verifier rejected the final state
	exitUnavailable = 5 // no runtime (auto: no isolating one answered) or image
	exitInterrupted = 130
)

// errUsage marks errors caused by the user's input.
var errUsage = errors.New("usage")

// errVerifyFailed is returned when a verifier runs and rejects the state.
var errVerifyFailed = errors.New("verifier failed")

// usageError wraps err so that it maps to exitUsage.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %w", errUsage, fmt.Errorf(format, a...))
}

// Run executes rbx with args and returns the process exit code.
func Run(ctx context.Context, args []string, s Streams) int {
	root := newRootCmd(s)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(s.ErrOut, "rbx:", cleanError(err))
	return exitCode(ctx, err)
}

func exitCode(ctx context.Context, err error) int {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, errUsage), errors.Is(err, replayer.ErrCheckpoint):
		return exitUsage
	case errors.As(err, new(*sandbox.NoRuntimeError)):
		return exitUnavailable
	case err != nil && !reason.IsInfra(err): // the trajectory's fault: it diverged
		return exitDiverged
	case errors.Is(err, errVerifyFailed):
		return exitVerifyFail
	case errors.Is(err, sandbox.ErrUnavailable), errors.Is(err, sandbox.ErrImageMissing):
		return exitUnavailable
	}
	return exitError
}

// cleanError drops the "usage: " prefix that only serves exit-code mapping.
func cleanError(err error) string {
	msg := err.Error()
	const p = "usage: "
	if len(msg) > len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}

func newRootCmd(s Streams) *cobra.Command {
	var verbose, version bool
	root := &cobra.Command{
		Use:   "rbx",
		Short: "Reset agent sandboxes to any checkpoint of a verified trajectory by replaying its tool calls",
		Long: `rbx resets an environment to an intermediate state of a recorded, verified trajectory by
starting a sandbox and re-executing the trajectory's tool calls up to a checkpoint.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.Flags().BoolVar(&version, "version", false, "print the version (as `rbx version`) and exit")
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log debug information to stderr")
	logger := func() *slog.Logger {
		level := slog.LevelWarn
		if verbose {
			level = slog.LevelDebug
		}
		return slog.New(slog.NewTextHandler(s.ErrOut, &slog.HandlerOptions{Level: level}))
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fmt.Errorf("%w: %w", errUsage, err) })
	root.AddCommand(
		newReplayCmd(s, logger),
		newVerifyCmd(s, logger),
		newImagesCmd(s, logger),
		newDemoCmd(s, logger),
		newSimulateCmd(s, logger),
		newSFTCmd(s, logger),
		newGCCmd(s, logger),
		newPrefilterCmd(s, logger),
		newImportCmd(s, logger),
		newExportCmd(s, logger),
		newServeCmd(s, logger),
		newProbeCmd(s, logger),
		newInterveneCmd(s, logger),
		newVersionCmd(s, logger),
	)
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		if version {
			return runVersion(cmd.Context(), s, logger())
		}
		return cmd.Help()
	}
	return root
}
