package docker

import (
	"context"
	"fmt"
	"io"
	"os"

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

// scopeFor waits for the agent's word that the sandbox is quiet, then
// reads the upper layer's directories: the scope of this recycle's walk.
func scopeFor(out io.Reader, upper string) ([][]byte, *agent.Scope, error) {
	quiet := make([]byte, len(agent.Quiet))
	if _, err := io.ReadFull(out, quiet); err != nil || string(quiet) != agent.Quiet {
		return nil, nil, fmt.Errorf("agent did not say it is quiet (%q, %v)", quiet, err)
	}
	dirs, err := recycle.UpperDirs(upper)
	if err != nil {
		return nil, nil, err
	}
	scope, err := agent.NewScope(dirs)
	return dirs, scope, err
}
