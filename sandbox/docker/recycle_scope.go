package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// scopeDriver is the storage driver whose upper layer a scoped recycle
// reads: fuse-overlayfs copies a renamed directory up whole (no redirect
// to a lower one), so a directory absent from the upper layer is the
// image's, tree and all (agent.Scope). The kernel's overlay2 may redirect
// a renamed directory; its walks are cheap anyway (no FUSE round trip per
// entry), so it keeps the full walk.
const scopeDriver = "fuse-overlayfs"

// WithScopedRecycle sets whether a recycle walks only the directories of
// the sandbox's upper layer (default true), where the engine's storage is
// fuse-overlayfs and this process can read the layer (the engine on this
// host, rbx as root); otherwise, or false, it walks every writable mount.
// Both prove the same: the scope only skips trees no change reached.
func WithScopedRecycle(on bool) Option {
	return func(c *config) error { c.fullWalks = !on; return nil }
}

// upperDir returns the host path of the sandbox's upper layer when a
// recycle can be scoped by it, "" when it cannot (and why, for the log).
func (s *Sandbox) upperDir(ctx context.Context) (string, string) {
	if s.rt.fullWalks {
		return "", "scoped recycles off"
	}
	info, err := s.rt.cli.ContainerInspect(ctx, s.id)
	if err != nil {
		return "", err.Error()
	}
	if info.GraphDriver.Name != scopeDriver {
		return "", "storage driver " + info.GraphDriver.Name
	}
	upper := info.GraphDriver.Data["UpperDir"]
	if st, err := os.Stat(upper); err != nil || !st.IsDir() {
		return "", fmt.Sprintf("upper layer %q not readable here (%v)", upper, err)
	}
	return upper, ""
}

// scopedListing takes a recyclable sandbox's fresh listing by a walk
// scoped by its upper layer at creation (the engine's few entries, and the
// other writable mounts whole) when the host holds the image's listing:
// the rest of the root filesystem is the image's. A creation then costs
// no walk of the image (72,778 FUSE round trips on the toolchain image).
// recycle.ErrNoListing: the listing does not fit the one held.
func (s *Sandbox) scopedListing(ctx context.Context, imageID, upper string) (*recycle.Fresh, agent.Report, error) {
	var rep agent.Report
	var scope *agent.Scope
	err := s.runAgentStream(ctx, []string{"scan", "-keep", "-scoped"}, func(in io.Writer, out io.Reader) error {
		dirs, sc, err := recycle.ScopeFor(out, upper)
		if err != nil {
			return err
		}
		scope = sc
		if err := agent.WriteScope(in, dirs); err != nil {
			return fmt.Errorf("send the scope: %w", err)
		}
		rep, err = agent.ReadFrame(out)
		return err
	})
	if err != nil {
		return nil, agent.Report{}, err
	}
	if rep.State.Others != 0 || rep.State.IPC != 0 {
		return nil, agent.Report{}, fmt.Errorf("%d processes and %d IPC objects at creation", rep.State.Others, rep.State.IPC)
	}
	fr, err := s.rt.fresh.FromScoped(imageID, scope, rep.Entries, upperLacks(upper))
	return fr, rep, err
}

// upperLacks returns whether the upper layer at upper holds no entry at a
// path of the sandbox's root filesystem (nor a whiteout in its place),
// resolved beneath upper without following any symlink. Any answer but
// "no such entry" counts as held: the entry is then restored, never taken
// as the image's. Read only while no process of the sandbox runs.
func upperLacks(upper string) func(p []byte) bool {
	return func(p []byte) bool {
		rel := strings.TrimPrefix(string(p), "/")
		if rel == "" {
			return false
		}
		dir, err := unix.Open(upper, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer unix.Close(dir)
		fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err == nil {
			unix.Close(fd)
			return false
		}
		return errors.Is(err, unix.ENOENT)
	}
}
