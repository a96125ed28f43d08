package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// AgentDir is where the agent's volume is mounted, read-only, in every
// recyclable sandbox; AgentPath is the binary in it.
const (
	AgentDir  = "/.rbx"
	AgentPath = AgentDir + "/rbx-agent"
)

// LabelRole tells rbx's helper objects apart: "agent" (the agent's
// volume), "baseline" (an image's never-started reader container).
const LabelRole = "rbx.role"

// agentBinary is the trusted agent: its bytes and where they go.
type agentBinary struct {
	data   []byte
	volume string // rbx-agent-<sha256 prefix>

	mu    sync.Mutex
	ready bool // the volume holds data (checked once per runtime)
}

// WithAgent sets the static rbx-agent binary (see recycle.FindAgent) that
// recyclable sandboxes (Spec.Recycle) run as PID 1 (default: none, and
// Spec.Recycle is refused with sandbox.ErrUnsupported).
func WithAgent(path string) Option {
	return func(c *config) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		sum := sha256.Sum256(data)
		c.agent = &agentBinary{data: data, volume: "rbx-agent-" + hex.EncodeToString(sum[:8])}
		return nil
	}
}

// agentMount is the read-only mount of the agent's volume.
func (a *agentBinary) mount() mount.Mount {
	return mount.Mount{Type: mount.TypeVolume, Source: a.volume, Target: AgentDir, ReadOnly: true,
		VolumeOptions: &mount.VolumeOptions{NoCopy: true}}
}

// ensureAgent makes sure the agent's volume exists and holds the binary,
// through the Engine API only: a never-started helper container mounts it
// read-write, the binary is written with the archive API (or read back
// when the volume existed) and the helper is removed.
func (r *Runtime) ensureAgent(ctx context.Context, image string) error {
	a := r.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ready {
		return nil
	}
	_, err := r.cli.VolumeCreate(ctx, volume.CreateOptions{Name: a.volume, Driver: "local", Labels: map[string]string{
		sandbox.LabelManaged: "true", LabelRole: "agent",
	}})
	if err != nil {
		return fmt.Errorf("agent volume: %w", engineErr(err))
	}
	helper, err := r.cli.ContainerCreate(ctx, &container.Config{Image: image, Entrypoint: []string{AgentPath},
		Labels: r.volumeLabels(sandbox.Spec{})},
		&container.HostConfig{NetworkMode: sandbox.NetworkNone, Mounts: []mount.Mount{{
			Type: mount.TypeVolume, Source: a.volume, Target: AgentDir}}}, nil, nil, newName())
	if err != nil {
		return fmt.Errorf("agent volume helper: %w", engineErr(err))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
		defer cancel()
		if err := r.cli.ContainerRemove(rctx, helper.ID, container.RemoveOptions{Force: true}); err != nil {
			r.log.Warn("remove agent volume helper", "id", helper.ID, "err", err)
		}
	}()
	if held, err := r.readAgent(ctx, helper.ID); err == nil && bytes.Equal(held, a.data) {
		a.ready = true
		return nil
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "rbx-agent", Mode: 0o755, Size: int64(len(a.data))}); err != nil {
		return err
	}
	_, _ = tw.Write(a.data)
	_ = tw.Close()
	if err := r.cli.CopyToContainer(ctx, helper.ID, AgentDir, &buf, container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("agent volume: write: %w", engineErr(err))
	}
	if held, err := r.readAgent(ctx, helper.ID); err != nil || !bytes.Equal(held, a.data) {
		return fmt.Errorf("agent volume: read back: %w", errors.Join(err, errors.New("content differs")))
	}
	a.ready = true
	return nil
}

// readAgent reads the agent binary held in container id's volume.
func (r *Runtime) readAgent(ctx context.Context, id string) ([]byte, error) {
	rc, _, err := r.cli.CopyFromContainer(ctx, id, AgentPath)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, sandbox.ErrNotFound
		}
		return nil, engineErr(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	h, err := tr.Next()
	if err != nil {
		return nil, err
	}
	if h.Typeflag != tar.TypeReg || h.Mode&0o111 == 0 || h.Uid != 0 {
		return nil, fmt.Errorf("agent in volume: type %c mode %o uid %d", h.Typeflag, h.Mode, h.Uid)
	}
	return io.ReadAll(io.LimitReader(tr, int64(len(r.agent.data))+1))
}
