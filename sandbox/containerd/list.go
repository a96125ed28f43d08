package containerd

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/containerd/containerd/v2/client"
	cerrdefs "github.com/containerd/errdefs"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Open attaches to a running rbx container by id. Its mode, workdir and
// limits come from the labels Create set; a session shell is opened on
// first use.
func (r *Runtime) Open(ctx context.Context, id string) (sandbox.Sandbox, error) {
	ctx = r.ctx(ctx)
	c, labels, err := r.managed(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, err)
	}
	sb := newSandbox(r, c, sandbox.SpecFromLabels(labels, ""))
	sb.oomSeen = -1 // not created here: earlier OOM kills are unknown
	spec, err := c.Spec(ctx)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, engineErr(err))
	}
	sb.process = *spec.Process
	if sb.runsc, err = onRunsc(ctx, c); err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, err)
	}
	t, err := c.Task(ctx, nil)
	if cerrdefs.IsNotFound(err) {
		return nil, fmt.Errorf("open sandbox %s: %w", id, &sandbox.GoneError{ID: id, Cause: sandbox.CauseExited, Detail: "no task"})
	}
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, engineErr(err))
	}
	sb.task = t
	if err := sb.checkRunning(ctx); err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, err)
	}
	return sb, nil
}

// managed loads container id and its labels, refusing one rbx did not
// create.
func (r *Runtime) managed(ctx context.Context, id string) (client.Container, map[string]string, error) {
	c, err := r.cli.LoadContainer(ctx, id)
	if err != nil {
		return nil, nil, engineErr(err)
	}
	labels, err := c.Labels(ctx)
	if err != nil {
		return nil, nil, engineErr(err)
	}
	if labels[sandbox.LabelManaged] != "true" {
		return nil, nil, fmt.Errorf("%w: %w", sandbox.ErrNotFound, errNotManaged)
	}
	return c, labels, nil
}

// List returns the rbx containers of the namespace, running or not, whose
// labels include every pair in selector.
func (r *Runtime) List(ctx context.Context, selector map[string]string) ([]sandbox.Info, error) {
	ctx = r.ctx(ctx)
	cs, err := r.cli.Containers(ctx, labelFilter(selector))
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", engineErr(err))
	}
	infos := make([]sandbox.Info, 0, len(cs))
	for _, c := range cs {
		info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
		if cerrdefs.IsNotFound(err) {
			continue // removed since
		}
		if err != nil {
			return nil, fmt.Errorf("list sandboxes: %w", engineErr(err))
		}
		labels, annotations := sandbox.SplitLabels(info.Labels)
		infos = append(infos, sandbox.Info{
			ID: info.ID, Name: info.ID, Image: info.Image, State: r.state(ctx, c),
			Labels: labels, Annotations: annotations, Created: info.CreatedAt,
		})
	}
	return infos, nil
}

// labelFilter is the containerd filter matching rbx containers with every
// pair of selector.
func labelFilter(selector map[string]string) string {
	pairs := map[string]string{sandbox.LabelManaged: "true"}
	for k, v := range selector {
		pairs[k] = v
	}
	keys := make([]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f := ""
	for i, k := range keys {
		if i > 0 {
			f += ","
		}
		f += "labels." + strconv.Quote(k) + "==" + strconv.Quote(pairs[k])
	}
	return f
}

// state is the container's task status as Docker names states: running,
// exited, created, paused, or "stopped" when it has no task.
func (r *Runtime) state(ctx context.Context, c client.Container) string {
	t, err := c.Task(ctx, nil)
	if err != nil {
		return "stopped"
	}
	st, err := t.Status(ctx)
	if err != nil {
		return "unknown"
	}
	if st.Status == client.Stopped {
		return "exited"
	}
	return string(st.Status)
}

// Remove kills and deletes an rbx container with its snapshot. A container
// that does not exist, or that rbx did not create, returns an error
// wrapping sandbox.ErrNotFound.
func (r *Runtime) Remove(ctx context.Context, id string) error {
	ctx = r.ctx(ctx)
	c, _, err := r.managed(ctx, id)
	if err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	if err := r.remove(ctx, c); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, engineErr(err))
	}
	return nil
}
