package main

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// demoPrefilter proves the examples replay and pass, twice each.
func demoPrefilter(ctx context.Context, s Streams, rt sandbox.Runtime, rp *replayer.Replayer, dir string) error {
	fmt.Fprintf(s.Out, "\n== prefilter: every example replayed end to end 2x in fresh sandboxes, verified ==\n")
	items, err := prefilter.Discover(dir)
	if err != nil {
		return fmt.Errorf("demo prefilter: %w", err)
	}
	rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(2), prefilter.WithConcurrency(4))
	if err != nil {
		return fmt.Errorf("demo prefilter: %w", err)
	}
	if err := prefilter.WriteTable(s.Out, rep); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if r.Status != prefilter.StatusKept {
			return fmt.Errorf("%w: demo prefilter rejected %s: %s", errVerifyFailed, r.Key, r.Reason)
		}
	}
	return nil
}
