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
	engine, disk := engineInfo(ctx, log)
	fmt.Fprintf(s.Out, "engine: %s\n", engine)
	if disk != "" {
		fmt.Fprintf(s.Out, "disk bound: %s\n", disk)
	}
	return nil
}

// engineInfo asks the first container engine that answers within
// engineVersionTimeout for its version and how it bounds a sandbox's disk
// writes (docs/isolation.md); disk is empty when no engine answered.
func engineInfo(ctx context.Context, log *slog.Logger) (engine, disk string) {
	ctx, cancel := context.WithTimeout(ctx, engineVersionTimeout)
	defer cancel()
	rt, _, err := sandbox.Detect(ctx, engineBackends(log, io.Discard)...)
	if err != nil {
		return "none answered", ""
	}
	defer rt.Close()
	if db, ok := rt.(sandbox.DiskBounder); ok {
		if bound, why, err := db.DiskBound(ctx); err != nil {
			disk = err.Error()
		} else {
			disk = fmt.Sprintf("%s (%s)", bound, why)
		}
	}
	ev, ok := rt.(sandbox.EngineVersioner)
	if !ok {
		return rt.Name() + " (version unknown)", disk
	}
	version, api, err := ev.EngineVersion(ctx)
	if err != nil {
		return fmt.Sprintf("%s: %v", rt.Name(), err), disk
	}
	return fmt.Sprintf("%s %s (API %s)", rt.Name(), version, api), disk
}
