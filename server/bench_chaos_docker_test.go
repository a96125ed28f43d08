package server_test

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/docker/docker/client"
)

// dockerInjector breaks a server's Docker sandboxes.
type dockerInjector struct{ cli *client.Client }

// pick is one running sandbox of the server whose process is pid ("" when
// none runs).
func (d *dockerInjector) pick(ctx context.Context, pid int, rng *rand.Rand) (string, error) {
	ids, err := ownedBy(ctx, d.cli, pid, true)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return ids[rng.IntN(len(ids))], nil
}

func (d *dockerInjector) kill(ctx context.Context, pid int, rng *rand.Rand) (string, error) {
	id, err := d.pick(ctx, pid, rng)
	if err != nil || id == "" {
		return "", err
	}
	return id, d.cli.ContainerKill(ctx, id, "KILL")
}

// freeze pauses a sandbox for d, then thaws it if it still exists.
func (d *dockerInjector) freeze(ctx context.Context, pid int, rng *rand.Rand, dur time.Duration) (string, error) {
	id, err := d.pick(ctx, pid, rng)
	if err != nil || id == "" {
		return "", err
	}
	if err := d.cli.ContainerPause(ctx, id); err != nil {
		return "", err
	}
	time.AfterFunc(dur, func() { _ = d.cli.ContainerUnpause(context.Background(), id) })
	return id, nil
}
