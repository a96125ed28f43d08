package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// exportOptions are the flags of `rbx export`.
type exportOptions struct {
	path, format, out, id string
}

func newExportCmd(s Streams, _ func() *slog.Logger) *cobra.Command {
	o := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export TRAJECTORY --format native|atif|openai",
		Short: "Write a trajectory (or a served episode) as native JSON, ATIF or OpenAI chat messages",
		Long: `Export writes a native trajectory (any importable format is read too) as native JSON,
ATIF v1.4 (every step an agent step with one tool call named after its action; rbx-only
fields under extra.rbx, so importing it back is lossless) or OpenAI chat messages (one
assistant tool call and one tool result per step; exit codes and tokens are not kept).`,
		Example: `  rbx export examples/fix-tests/trajectory.json --format atif > fix-tests.atif.json
  rbx export episode.json --format openai --out episode.openai.json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runExport(cmd.Context(), s, o)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "native", "native, atif or openai")
	cmd.Flags().StringVar(&o.out, "out", "", "output file (default stdout)")
	cmd.Flags().StringVar(&o.id, "id", "", "the trajectory to export when the file holds several")
	return cmd
}

func runExport(_ context.Context, s Streams, o *exportOptions) error {
	trajs, err := trajectory.Load(o.path)
	if err != nil {
		imported, ok, ierr := importedTrajectory(o.path)
		if !ok {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		if ierr != nil {
			return fmt.Errorf("%w: %w", errUsage, ierr)
		}
		trajs = imported
	}
	t, err := corpus.Pick(o.path, trajs, o.id)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	var v any
	switch o.format {
	case "native":
		v = t
	case "atif":
		v, err = importer.ExportATIF(t)
	case "openai":
		v, err = importer.ExportOpenAI(t)
	default:
		return usageError("--format %q: expected native, atif or openai", o.format)
	}
	if err != nil {
		return err
	}
	w := s.Out
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return encode(w, v)
}

func encode(w io.Writer, v any) error {
	if err := importer.WriteJSON(w, v); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
