package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/importer/tbench"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// importOptions are the flags of `rbx import`.
type importOptions struct {
	format, src, out string
	toolsMap         string
	aliases          string
	task, id         string
	output           string
	build            bool
	rt               runtimeFlags
}

func newImportCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import FORMAT SRC --out DIR",
		Short: "Convert trajectories or terminal-bench/Harbor task folders into native rbx files",
		Long: `Import converts what other tools write into native rbx files.

Trajectory formats (SRC is a file): openai, atif, swe-agent, mini-swe-agent, openhands,
native, or auto (detected); terminal-bench's Terminus log folders (episode-N/prompt.txt and
response.json) are read as the chat they hold. Tool calls become actions through the tool map (docs/formats.md,
extend it with --tools-map FILE); calls of unknown tools are kept as noop steps and listed.
Each trajectory is written to DIR/<id>.json.

Task folders (SRC is a folder, or a folder of folders): terminal-bench (task.yaml,
Dockerfile, solution.sh, run-tests.sh, tests/) or harbor (task.toml, instruction.md,
environment/Dockerfile, solution/solve.sh, tests/). Each becomes DIR/<id>/ with task.json,
reference.json (the solution, one step per top-level command), the tests as verifier
(run offline with the image's pytest) and environment/ (the Dockerfile with FROM rewritten
to a local image). With a Docker engine the task image is built (--build), tagged
rbx-task/<id>:<hash>. A task that needs PyPI, PPAs or downloads is reported with the line.`,
		Example: `  rbx import auto run.traj --out imported/ --task ../tasks/fix.yaml
  rbx import openhands events.json --out imported/ --tools-map tools.yaml
  rbx import terminal-bench path/to/terminal-bench-tasks --out tasks/`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.format, o.src = args[0], args[1]
			return runImport(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "output directory (required)")
	f.StringVar(&o.toolsMap, "tools-map", "", "YAML file of extra tool → action rules (same shape as the built-in table)")
	f.StringVar(&o.aliases, "aliases", os.Getenv(images.AliasesEnv), "YAML file of base image aliases searched before the built-in table (default $"+images.AliasesEnv+"; docs/terminal-bench-images.md)")
	f.StringVar(&o.task, "task", "", `task reference written into imported trajectories (default "task.yaml")`)
	f.StringVar(&o.id, "id", "", "id of the imported trajectory (default: from the input)")
	f.StringVar(&o.output, "output", "table", "table or json (the import report)")
	f.BoolVar(&o.build, "build", true, "build task images when a Docker engine answers (task folders)")
	o.rt.register(cmd)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runImport(ctx context.Context, s Streams, log *slog.Logger, o *importOptions) error {
	switch o.format {
	case tbench.LayoutTerminalBench, tbench.LayoutHarbor, "tbench":
		return runImportTasks(ctx, s, log, o)
	}
	f := importer.Format(o.format)
	if !f.Valid() {
		return usageError("format %q: expected one of auto, native, openai, atif, swe-agent, mini-swe-agent, openhands, terminal-bench, harbor", o.format)
	}
	res, err := importFile(f, o.src, o.toolsMap, o.task, o.id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var paths []string
	for _, t := range res.Trajectories {
		p := filepath.Join(o.out, t.ID+".json")
		if err := writeTrajectoryFile(p, t); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	if o.output == "json" {
		return writeJSON(s.Out, map[string]any{"report": res.Report, "files": paths})
	}
	fmt.Fprintln(s.ErrOut, res.Report.Summary())
	for _, w := range res.Report.Warnings {
		fmt.Fprintln(s.ErrOut, "warning:", w)
	}
	for _, p := range paths {
		fmt.Fprintln(s.Out, p)
	}
	return nil
}

// importFile imports one trajectory file; errors in the input are usage errors.
func importFile(f importer.Format, path, toolsMap, taskRef, id string) (*importer.Result, error) {
	var data []byte
	var err error
	if importer.IsTerminusLogs(path) && (f == importer.FormatAuto || f == importer.FormatOpenAI) {
		// terminal-bench's Terminus episode folders: the chat they hold.
		data, err = importer.TerminusLogsChat(path)
		f = importer.FormatOpenAI
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageError("import: %w", err)
	}
	opts := []importer.Option{importer.WithID(id)}
	if taskRef != "" {
		opts = append(opts, importer.WithTask(taskRef))
	}
	if toolsMap != "" {
		m, err := importer.LoadToolMap(toolsMap)
		if err != nil {
			return nil, usageError("--tools-map: %w", err)
		}
		opts = append(opts, importer.WithTools(importer.DefaultTools().Merge(m)))
	}
	res, err := importer.Import(f, path, data, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return res, nil
}

func writeTrajectoryFile(path string, t *trajectory.Trajectory) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	err = trajectory.Write(fh, t)
	return errors.Join(err, fh.Close())
}

// importedTrajectory is the hook `replay` and `verify` use: a file that
// is not native but is a known format is imported in memory. ok is false
// for native files (their own errors stand).
func importedTrajectory(path string) (_ []*trajectory.Trajectory, ok bool, _ error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, nil
	}
	f, err := importer.Detect(data)
	if err != nil || f == importer.FormatNative {
		return nil, false, nil
	}
	res, err := importer.Import(f, path, data, importer.WithTask(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))))
	if err != nil {
		return nil, true, err
	}
	for _, t := range res.Trajectories {
		t.Path = path
		t.Task = "" // foreign formats name no task: --task is required
	}
	return res.Trajectories, true, nil
}
