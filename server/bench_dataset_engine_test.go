package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// baselineLabel marks the engine baseline's own containers (not
// rbx.managed: they are not sandboxes), valued by this process's pid.
const baselineLabel = "rbx.bench.dataset"

// engineRate is the engine's own create + start + remove rate for bare
// containers of image, width at a time: containers/s over n.
type engineRate struct {
	Image      string  `json:"image"`
	Containers int     `json:"containers"`
	Width      int     `json:"width"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"per_second"`
}

// measureEngine creates, starts and force-removes n containers through
// the Engine API, width at a time. Every container left (a failure half
// way) is removed at cleanup.
func measureEngine(ctx context.Context, b *testing.B, cli *client.Client, image string, n, width int) (engineRate, error) {
	mine := fmt.Sprint(os.Getpid())
	b.Cleanup(func() { _ = removeLabelled(context.Background(), cli, baselineLabel+"="+mine, nil) })
	cfg := &container.Config{Image: image, Cmd: []string{"sleep", "3600"}, Labels: map[string]string{baselineLabel: mine}}
	hc := &container.HostConfig{NetworkMode: "none"}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(width)
	start := time.Now()
	for i := 0; i < n; i++ {
		g.Go(func() error {
			c, err := cli.ContainerCreate(gctx, cfg, hc, nil, nil, "")
			if err != nil {
				return fmt.Errorf("create: %w", err)
			}
			if err := cli.ContainerStart(gctx, c.ID, container.StartOptions{}); err != nil {
				return errors.Join(fmt.Errorf("start %s: %w", c.ID[:12], err), cli.ContainerRemove(gctx, c.ID, container.RemoveOptions{Force: true}))
			}
			if err := cli.ContainerRemove(gctx, c.ID, container.RemoveOptions{Force: true}); err != nil {
				return fmt.Errorf("remove %s: %w", c.ID[:12], err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return engineRate{}, fmt.Errorf("engine baseline: %w", err)
	}
	d := time.Since(start)
	return engineRate{Image: image, Containers: n, Width: width, Seconds: d.Seconds(), PerSecond: float64(n) / d.Seconds()}, nil
}

// ownedBy lists the containers labelled rbx.managed=true whose owner is
// the process pid (another engineer's rbx on the same engine is not
// counted), running ones only when running is set.
func ownedBy(ctx context.Context, cli *client.Client, pid int, running bool) ([]string, error) {
	f := filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=true"))
	if running {
		f.Add("status", "running")
	}
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: !running, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	var out []string
	for _, c := range cs {
		if ownerPid(c.Labels[sandbox.LabelOwner]) == pid {
			out = append(out, c.ID)
		}
	}
	return out, nil
}

// ownerPid is the pid in an rbx.owner label (0 when it is not one).
func ownerPid(owner string) int {
	_, pid, _, ok := sandbox.ParseOwner(owner)
	if !ok {
		return 0
	}
	return pid
}

// removeLabelled force-removes every container carrying label (k=v) and
// passing keep (nil: all).
func removeLabelled(ctx context.Context, cli *client.Client, label string, keep func(container.Summary) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", label))})
	if err != nil {
		return fmt.Errorf("list %s: %w", label, err)
	}
	var errs []error
	for _, c := range cs {
		if keep == nil || keep(c) {
			errs = append(errs, cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}))
		}
	}
	return errors.Join(errs...)
}
