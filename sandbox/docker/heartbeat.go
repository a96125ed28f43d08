package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.HeartbeatStore = (*Runtime)(nil)

// An owner's heartbeat is kept in the engine, where every rbx process
// sharing it sees it, as a volume: the engine's labels cannot be changed
// after creation (on containers and volumes alike), so each beat creates
// a volume "rbx-owner-<hash of the owner>-<time>" labelled with the owner
// and the beat's time, then removes the owner's older ones. A volume needs
// no image (a stand-in container would), costs an empty directory, and is
// listed by label in one call. `docker volume prune` may remove it: the
// owner then has no heartbeat until its next beat, and an owner without
// one is never taken for dead (sandbox.OwnerDead).

// beatPrefix starts the names of owner's heartbeat volumes.
func beatPrefix(owner string) string {
	h := sha256.Sum256([]byte(owner))
	return "rbx-owner-" + hex.EncodeToString(h[:8]) + "-"
}

// Beat records that owner was alive at at.
func (r *Runtime) Beat(ctx context.Context, owner string, at time.Time) error {
	name := beatPrefix(owner) + strconv.FormatInt(at.UnixNano(), 16)
	_, err := r.cli.VolumeCreate(ctx, volume.CreateOptions{Name: name, Driver: "local", Labels: map[string]string{
		sandbox.LabelHeartbeatOwner: owner, sandbox.LabelHeartbeat: strconv.FormatInt(at.Unix(), 10),
	}})
	if err != nil {
		return fmt.Errorf("heartbeat of %s: %w", owner, engineErr(err))
	}
	old, err := r.beatVolumes(ctx, owner)
	if err != nil {
		return fmt.Errorf("heartbeat of %s: %w", owner, err)
	}
	return r.removeVolumes(ctx, old, name)
}

// Heartbeats returns the last beat of every owner with a heartbeat volume.
func (r *Runtime) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	vols, err := r.beatVolumes(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list heartbeats: %w", err)
	}
	beats := map[string]time.Time{}
	for _, v := range vols {
		owner := v.Labels[sandbox.LabelHeartbeatOwner]
		sec, err := strconv.ParseInt(v.Labels[sandbox.LabelHeartbeat], 10, 64)
		if err != nil || owner == "" {
			continue // not a volume this package wrote
		}
		if t := time.Unix(sec, 0); t.After(beats[owner]) {
			beats[owner] = t
		}
	}
	return beats, nil
}

// ForgetHeartbeat removes owner's heartbeat volumes.
func (r *Runtime) ForgetHeartbeat(ctx context.Context, owner string) error {
	vols, err := r.beatVolumes(ctx, owner)
	if err != nil {
		return fmt.Errorf("forget heartbeat of %s: %w", owner, err)
	}
	return r.removeVolumes(ctx, vols, "")
}

// beatVolumes lists the heartbeat volumes of owner, or of every owner
// when owner is empty.
func (r *Runtime) beatVolumes(ctx context.Context, owner string) ([]*volume.Volume, error) {
	label := sandbox.LabelHeartbeatOwner
	if owner != "" {
		label += "=" + owner
	}
	res, err := r.cli.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(filters.Arg("label", label))})
	if err != nil {
		return nil, engineErr(err)
	}
	return res.Volumes, nil
}

// removeVolumes removes vols but keep; one removed meanwhile is no error.
func (r *Runtime) removeVolumes(ctx context.Context, vols []*volume.Volume, keep string) error {
	var errs []error
	for _, v := range vols {
		if v.Name == keep {
			continue
		}
		if err := r.cli.VolumeRemove(ctx, v.Name, false); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove heartbeat volume %s: %w", v.Name, engineErr(err)))
		}
	}
	return errors.Join(errs...)
}
