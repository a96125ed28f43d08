package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/admission"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// engineVersionTimeout bounds the question to the engine: `rbx version`
// must answer at once on a machine without one.
const engineVersionTimeout = 2 * time.Second

func newVersionCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rbx's version, VCS revision, Go version and the container engine's API version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(cmd.Context(), s, logger())
		},
	}
}

// buildVersion is what the binary knows about itself.
type buildVersion struct {
	Module, Version, Revision, Time, Go string
	Modified                            bool
}

// readBuildVersion reads the module version and VCS settings the go
// command stamped into the binary; a test binary has none of them.
func readBuildVersion() buildVersion {
	v := buildVersion{Module: "rbx", Version: "(unknown)", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Path != "" {
		v.Module = info.Main.Path
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			v.Revision = kv.Value
		case "vcs.time":
			v.Time = kv.Value
		case "vcs.modified":
			v.Modified = kv.Value == "true"
		}
	}
	return v
}

func runVersion(ctx context.Context, s Streams, log *slog.Logger) error {
	v := readBuildVersion()
	fmt.Fprintf(s.Out, "rbx %s (%s)\n", v.Version, v.Module)
	rev := v.Revision
	if rev == "" {
		rev = "(unknown)"
	}
	if v.Modified {
		rev += " (modified)"
	}
	if v.Time != "" {
		rev += " " + v.Time
	}
	fmt.Fprintf(s.Out, "revision: %s\n", rev)
	fmt.Fprintf(s.Out, "go: %s %s/%s\n", v.Go, runtime.GOOS, runtime.GOARCH)
	engine, iso := engineInfo(ctx, log)
	fmt.Fprintf(s.Out, "engine: %s\n", engine)
	if iso != "" {
		fmt.Fprintf(s.Out, "isolation: %s\n", iso)
	}
	fmt.Fprintf(s.Out, "task policy (defaults; --allow-cap, --allow-network, --allow-registry, --task-policy): %s\n", admission.Default().Describe())
	return nil
}

// engineInfo asks the first container engine that answers within
// engineVersionTimeout for its version and the isolation its sandboxes get
// (runtime, seccomp, user namespace, disk bound: docs/isolation.md); iso is
// empty when no engine answered.
func engineInfo(ctx context.Context, log *slog.Logger) (engine, iso string) {
	ctx, cancel := context.WithTimeout(ctx, engineVersionTimeout)
	defer cancel()
	rt, _, err := sandbox.Detect(ctx, engineBackends(log, io.Discard)...)
	if err != nil {
		return "none answered", ""
	}
	defer rt.Close()
	iso = isolationOf(ctx, rt)
	ev, ok := rt.(sandbox.EngineVersioner)
	if !ok {
		return rt.Name() + " (version unknown)", iso
	}
	version, api, err := ev.EngineVersion(ctx)
	if err != nil {
		return fmt.Sprintf("%s: %v", rt.Name(), err), iso
	}
	return fmt.Sprintf("%s %s (API %s)", rt.Name(), version, api), iso
}

// isolationOf says what isolation rt's sandboxes get: its report, else its
// disk bound alone, else "".
func isolationOf(ctx context.Context, rt sandbox.Runtime) string {
	if ir, ok := rt.(sandbox.IsolationReporter); ok {
		if iso, err := ir.Isolation(ctx); err == nil {
			return iso.String()
		}
	}
	if db, ok := rt.(sandbox.DiskBounder); ok {
		if bound, why, err := db.DiskBound(ctx); err == nil {
			return fmt.Sprintf("disk bound %s (%s)", bound, why)
		}
	}
	return ""
}
