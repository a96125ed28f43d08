package docker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Open attaches to a running rbx container by id or name. Its mode, workdir
// and limits come from the labels Create set; a session shell is opened on
// first use.
func (r *Runtime) Open(ctx context.Context, id string) (sandbox.Sandbox, error) {
	info, err := r.cli.ContainerInspect(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, engineErr(err))
	}
	if info.Config == nil || info.Config.Labels[sandbox.LabelManaged] != "true" {
		return nil, fmt.Errorf("open sandbox %s: %w: %w", id, sandbox.ErrNotFound, errNotManaged)
	}
	if info.State == nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, &sandbox.GoneError{ID: info.ID, Cause: sandbox.CauseExited, Detail: "no state"})
	}
	if !info.State.Running {
		return nil, fmt.Errorf("open sandbox %s: %w", id, goneFromState(info.ID, info.State))
	}
	spec := sandbox.SpecFromLabels(info.Config.Labels, info.Config.WorkingDir)
	spec.ReadOnlyRoot = info.HostConfig != nil && info.HostConfig.ReadonlyRootfs
	sb := newSandbox(r, info.ID, spec)
	sb.oomSeen = -1 // not created here: earlier OOM kills are unknown
	sb.imageID = info.Image
	if info.Config.User != "" {
		if sb.owner, err = r.lookupOwner(ctx, info.ID, info.Config.User); err != nil {
			return nil, fmt.Errorf("open sandbox %s: %w", id, err)
		}
	}
	return sb, nil
}

// List returns the rbx containers, running or not, whose labels include
// every pair in selector.
func (r *Runtime) List(ctx context.Context, selector map[string]string) ([]sandbox.Info, error) {
	f := filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=true"))
	for k, v := range selector {
		f.Add("label", k+"="+v)
	}
	cs, err := r.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", engineErr(err))
	}
	infos := make([]sandbox.Info, 0, len(cs))
	for _, c := range cs {
		var name string
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		labels, annotations := sandbox.SplitLabels(c.Labels)
		infos = append(infos, sandbox.Info{
			ID: c.ID, Name: name, Image: c.Image, State: string(c.State),
			Labels: labels, Annotations: annotations, Created: time.Unix(c.Created, 0),
		})
	}
	return infos, nil
}

// Remove force-removes an rbx container and its anonymous volumes. A
// container that does not exist, or that rbx did not create, returns an
// error wrapping sandbox.ErrNotFound.
func (r *Runtime) Remove(ctx context.Context, id string) error {
	info, err := r.cli.ContainerInspect(ctx, id)
	if err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, engineErr(err))
	}
	if info.Config == nil || info.Config.Labels[sandbox.LabelManaged] != "true" {
		return fmt.Errorf("remove sandbox %s: %w: %w", id, sandbox.ErrNotFound, errNotManaged)
	}
	if info.State != nil && info.State.Paused {
		thaw(ctx, r.cli, info.ID)
	}
	err = r.cli.ContainerRemove(ctx, info.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, engineErr(err))
	}
	return nil
}
