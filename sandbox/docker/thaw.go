package docker

import (
	"context"

	"github.com/docker/docker/client"
)

// thaw unpauses a container before its forced removal, so the removal's
// SIGKILL lands at once rather than pending in a frozen cgroup. Seen once
// under the chaos benchmark (Engine 20.10, cgroup v1 freezer): a paused
// container the engine could neither remove nor inspect — every call on
// it hung, stalling each later reap — until its cgroup was thawed by
// hand. What led there is not known; thawing first costs one engine
// round trip (not paused is the usual answer, an error ignored).
func thaw(ctx context.Context, cli *client.Client, id string) {
	_ = cli.ContainerUnpause(ctx, id)
}
