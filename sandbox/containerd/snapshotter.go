package containerd

import (
	"context"
	"fmt"
	"strings"
)

// checkSnapshotter fails when containerd's plugin for the snapshotter is
// missing or did not load (overlayfs on a filesystem that cannot hold its
// upper layers, for example). The error names the snapshotters that did
// load, so that the choice of a slower one (native copies the image for
// every sandbox) is the user's, never a silent fallback.
func checkSnapshotter(ctx context.Context, r *Runtime) error {
	resp, err := r.cli.IntrospectionService().Plugins(ctx, "type==io.containerd.snapshotter.v1")
	if err != nil {
		return fmt.Errorf("list snapshotters: %w", engineErr(err))
	}
	var usable []string
	why := "containerd has no such plugin"
	for _, p := range resp.Plugins {
		switch {
		case p.InitErr == nil:
			if p.ID == r.snapshotter {
				return nil
			}
			usable = append(usable, p.ID)
		case p.ID == r.snapshotter:
			why = "it did not load: " + p.InitErr.Message
		}
	}
	return fmt.Errorf("snapshotter %s: %s; usable here: %s (see WithSnapshotter, --containerd-snapshotter)",
		r.snapshotter, why, strings.Join(usable, ", "))
}
