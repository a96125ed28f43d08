package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// gcOptions are the flags of `rbx gc`.
type gcOptions struct {
	all       bool
	kept      bool
	olderThan time.Duration
	maxAge    time.Duration // of an owner's heartbeat
	dryRun    bool
	output    string
	rt        runtimeFlags
}

func newGCCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &gcOptions{}
	cmd := &cobra.Command{
		Use:   "gc [--kept | --all | --older-than D] [--dry-run]",
		Short: "Remove sandboxes left behind by rbx processes that died",
		Long: `gc removes the rbx sandboxes whose owner process (the rbx.owner label:
host, pid and process start time) is dead. An owner of this host is dead when
its process no longer runs. An owner of another host (or another pid namespace)
is dead when its heartbeat, which every rbx process keeps in the backend while
it has sandboxes (every 20s), is older than --heartbeat-max-age; one without a
heartbeat is left alone. Sandboxes labelled rbx.keep=true (by replay --keep)
are left alone; --kept removes the kept ones of dead owners too.

--all removes every rbx sandbox, whoever owns it, live or not.
--older-than D removes exactly the rbx sandboxes created more than D ago, whoever
owns them, and no others.`,
		Example: `  rbx gc
  rbx gc --kept
  rbx gc --older-than 2h --dry-run
  rbx gc --all --output json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGC(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "remove every rbx sandbox, live owners and other hosts included")
	f.BoolVar(&o.kept, "kept", false, "also remove the sandboxes kept by replay --keep (of dead owners of this host)")
	f.DurationVar(&o.olderThan, "older-than", 0, "remove exactly the rbx sandboxes older than this duration (e.g. 2h)")
	f.DurationVar(&o.maxAge, "heartbeat-max-age", sandbox.DefaultHeartbeatMaxAge, "an owner of another host whose heartbeat is older than this is dead")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be removed, remove nothing")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	f.StringVar(&o.rt.name, "runtime", "auto", "sandbox backend: auto (docker, then containerd; fails when none answers), docker, containerd, kubernetes or local")
	f.StringVar(&o.rt.containerdAddress, "containerd-address", "", containerdAddressUsage)
	o.rt.registerKubernetes(cmd)
	return cmd
}

// gcEntry is one sandbox gc removed, as printed.
type gcEntry struct {
	ID      string    `json:"id"`
	Task    string    `json:"task"`
	Owner   string    `json:"owner"`
	Created time.Time `json:"created"`
	AgeSecs float64   `json:"age_seconds"`
	Pool    string    `json:"pool,omitempty"`
}

// gcResult is the JSON document `rbx gc --output json` prints.
type gcResult struct {
	Runtime string    `json:"runtime"`
	DryRun  bool      `json:"dry_run"`
	Removed []gcEntry `json:"removed"`
	Error   string    `json:"error,omitempty"`
}

func runGC(ctx context.Context, s Streams, log *slog.Logger, o *gcOptions) error {
	if o.output != "table" && o.output != "json" {
		return usageError("--output %q: expected table or json", o.output)
	}
	if o.all && o.olderThan != 0 {
		return usageError("--all and --older-than exclude each other")
	}
	if o.kept && (o.all || o.olderThan != 0) {
		return usageError("--kept: --all and --older-than already remove kept sandboxes")
	}
	if o.olderThan < 0 {
		return usageError("--older-than %v: must be positive", o.olderThan)
	}
	if o.maxAge <= 0 {
		return usageError("--heartbeat-max-age %v: must be positive", o.maxAge)
	}
	opts := []sandbox.ReapOption{sandbox.WithHeartbeatMaxAge(o.maxAge)}
	switch {
	case o.all:
		opts = append(opts, sandbox.WithAll())
	case o.olderThan > 0:
		opts = append(opts, sandbox.WithOlderThan(o.olderThan))
	case o.kept:
		opts = append(opts, sandbox.WithKept())
	}
	if o.dryRun {
		opts = append(opts, sandbox.WithDryRun())
	}
	rt, err := openRuntime(ctx, o.rt, s.ErrOut, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	removed, err := sandbox.Reap(ctx, rt, opts...)
	res := gcResult{Runtime: rt.Name(), DryRun: o.dryRun, Removed: gcEntries(removed, time.Now())}
	if err != nil {
		res.Error = err.Error()
	}
	if o.output == "json" {
		return errors.Join(err, writeJSON(s.Out, res))
	}
	printGC(s, res)
	return err
}

func gcEntries(infos []sandbox.Info, now time.Time) []gcEntry {
	entries := make([]gcEntry, 0, len(infos))
	for _, in := range infos {
		created := sandbox.Created(in)
		entries = append(entries, gcEntry{
			ID: in.ID, Task: sandbox.TaskID(in), Owner: in.Labels[sandbox.LabelOwner],
			Created: created, AgeSecs: now.Sub(created).Round(time.Second).Seconds(), Pool: in.Labels["rbx.pool"],
		})
	}
	return entries
}

const gcRowFormat = "%-16s %-24s %-32s %8s\n"

func printGC(s Streams, res gcResult) {
	verb := "removed"
	if res.DryRun {
		verb = "would remove"
	}
	if len(res.Removed) > 0 {
		fmt.Fprintf(s.Out, gcRowFormat, "ID", "TASK", "OWNER", "AGE")
	}
	for _, e := range res.Removed {
		fmt.Fprintf(s.Out, gcRowFormat, short(e.ID), e.Task, e.Owner, time.Duration(e.AgeSecs)*time.Second)
	}
	fmt.Fprintf(s.ErrOut, "%s %d %s sandbox(es)\n", verb, len(res.Removed), res.Runtime)
}

// reapTimeout bounds the start-up reap of long-running commands.
const reapTimeout = 60 * time.Second

// reapOrphans removes the sandboxes that dead rbx processes of this host left
// on rt; long-running commands (serve, prefilter) call it at start-up. It
// prints one line to errOut when it removed anything, and a warning instead
// of failing when it could not: a leftover must not keep a command from
// starting. It returns how many sandboxes it removed.
func reapOrphans(ctx context.Context, rt sandbox.Runtime, errOut io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, reapTimeout)
	defer cancel()
	removed, err := sandbox.Reap(ctx, rt)
	reapReport(rt.Name(), errOut)(removed, err)
	return len(removed)
}

// reapReport returns how a reap's result is reported: a line when it
// removed something, a warning when it failed.
func reapReport(runtime string, errOut io.Writer) func([]sandbox.Info, error) {
	return func(removed []sandbox.Info, err error) {
		if len(removed) > 0 {
			fmt.Fprintf(errOut, "removed %d %s sandbox(es) left by dead rbx processes\n", len(removed), runtime)
		}
		if err != nil {
			fmt.Fprintf(errOut, "warning: removing leftover sandboxes: %v\n", err)
		}
	}
}
