package containerd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// AgentDir is where the agent's host directory is bind-mounted, read-only,
// in every recyclable sandbox; AgentPath is the binary in it (the same
// paths as the docker backend's).
const (
	AgentDir  = "/.rbx"
	AgentPath = AgentDir + "/rbx-agent"
)

// agentHostRoot holds the agents' host directories: root's, on a tmpfs,
// one directory per binary (by content), holding that binary alone.
const agentHostRoot = "/run/rbx-agent"

// agentBinary is the trusted agent's host directory.
type agentBinary struct {
	dir string // agentHostRoot/<sha256 prefix>, holding rbx-agent only
}

// WithAgent sets the static rbx-agent binary (see recycle.FindAgent) that
// recyclable sandboxes (Spec.Recycle) run as PID 1 and recycle with
// (default: none, and Spec.Recycle is refused with
// sandbox.ErrUnsupported). The binary is copied to a root-owned directory
// of its own under /run/rbx-agent (rbx on containerd runs as root), which
// every recyclable sandbox mounts read-only at AgentDir: the file the
// caller named can change afterwards without reaching a sandbox.
func WithAgent(path string) Option {
	return func(c *config) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		a, err := installAgent(agentHostRoot, data)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		c.agent = a
		return nil
	}
}

// installAgent puts data at root/<sha256 prefix>/rbx-agent (0555, in a
// 0755 directory) unless it is there already, written to a temporary name
// and renamed, then read back and compared.
func installAgent(root string, data []byte) (*agentBinary, error) {
	sum := sha256.Sum256(data)
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	dst := filepath.Join(dir, filepath.Base(AgentPath))
	if held, err := os.ReadFile(dst); err == nil && bytes.Equal(held, data) {
		return &agentBinary{dir: dir}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".rbx-agent-*")
	if err != nil {
		return nil, err
	}
	_, werr := f.Write(data)
	err = errors.Join(werr, f.Chmod(0o555), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return nil, err
	}
	if held, err := os.ReadFile(dst); err != nil || !bytes.Equal(held, data) {
		return nil, fmt.Errorf("read back %s: %w", dst, errors.Join(err, errors.New("content differs")))
	}
	return &agentBinary{dir: dir}, nil
}

// specOpts are a recyclable sandbox's: the agent's directory mounted
// read-only (root without CAP_SYS_ADMIN cannot remount it) and the agent
// as PID 1, alone (see recycle/agent.Init): a fresh sandbox runs no other
// process, which the fresh listing checks.
func (a *agentBinary) specOpts() []oci.SpecOpts {
	return []oci.SpecOpts{
		oci.WithMounts([]specs.Mount{{Destination: AgentDir, Type: "bind", Source: a.dir, Options: []string{"rbind", "ro", "nodev"}}}),
		oci.WithProcessArgs(AgentPath, "init"),
	}
}
