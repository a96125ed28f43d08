package containerd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/oci"
	cerrdefs "github.com/containerd/errdefs"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.HeartbeatStore = (*Runtime)(nil)

// An owner's heartbeat is a container record of its own in the namespace,
// "rbx-owner-<hash of the owner>": labels only (the owner and the time of
// its last beat), an empty spec, no task and no snapshot, so it costs
// nothing and runs nothing. Labels of a containerd container can be
// updated, so a beat is one call. The record carries no rbx.managed label:
// List, Open and Remove never take it for a sandbox.

// recordID is the id of owner's heartbeat record.
func recordID(owner string) string {
	h := sha256.Sum256([]byte(owner))
	return "rbx-owner-" + hex.EncodeToString(h[:8])
}

// Beat records that owner was alive at at.
func (r *Runtime) Beat(ctx context.Context, owner string, at time.Time) error {
	ctx = r.ctx(ctx)
	labels := map[string]string{sandbox.LabelHeartbeatOwner: owner, sandbox.LabelHeartbeat: strconv.FormatInt(at.Unix(), 10)}
	id := recordID(owner)
	for range 2 { // a record created or removed by another process meanwhile
		c, err := r.cli.LoadContainer(ctx, id)
		if err == nil {
			if _, err = c.SetLabels(ctx, labels); !cerrdefs.IsNotFound(err) {
				return beatErr(owner, err)
			}
			continue
		}
		if !cerrdefs.IsNotFound(err) {
			return beatErr(owner, err)
		}
		_, err = r.cli.NewContainer(ctx, id, client.WithContainerLabels(labels),
			client.WithRuntime(runtimeName, nil), client.WithSpec(&oci.Spec{}))
		if !cerrdefs.IsAlreadyExists(err) {
			return beatErr(owner, err)
		}
	}
	return beatErr(owner, fmt.Errorf("record %s keeps changing", id))
}

func beatErr(owner string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("heartbeat of %s: %w", owner, engineErr(err))
}

// Heartbeats returns the last beat of every owner with a record.
func (r *Runtime) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	ctx = r.ctx(ctx)
	cs, err := r.cli.Containers(ctx, "labels."+strconv.Quote(sandbox.LabelHeartbeatOwner))
	if err != nil {
		return nil, fmt.Errorf("list heartbeats: %w", engineErr(err))
	}
	beats := make(map[string]time.Time, len(cs))
	for _, c := range cs {
		info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
		if err != nil {
			continue // removed since
		}
		sec, err := strconv.ParseInt(info.Labels[sandbox.LabelHeartbeat], 10, 64)
		owner := info.Labels[sandbox.LabelHeartbeatOwner]
		if err != nil || owner == "" || info.ID != recordID(owner) {
			continue // not a record this package wrote
		}
		if t := time.Unix(sec, 0); t.After(beats[owner]) {
			beats[owner] = t
		}
	}
	return beats, nil
}

// ForgetHeartbeat removes owner's record.
func (r *Runtime) ForgetHeartbeat(ctx context.Context, owner string) error {
	ctx = r.ctx(ctx)
	err := r.cli.ContainerService().Delete(ctx, recordID(owner))
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("forget heartbeat of %s: %w", owner, engineErr(err))
	}
	return nil
}
