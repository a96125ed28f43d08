package docker

import (
	"context"

	"github.com/docker/docker/client"
)

// thaw unpauses a paused container before the reap's forced removal,
// so the removal's SIGKILL lands at once rather than pending in a frozen
// cgroup. Seen once under the chaos benchmark (Engine 20.10, cgroup v1
// freezer): a paused container the engine could neither remove nor
// inspect until its cgroup was thawed by hand. The reap inspects first,
// so only a paused container costs the extra call; a sandbox's own
// Remove does not (a paused one is removed all the same,
// TestIntegrationRemovePaused).
func thaw(ctx context.Context, cli *client.Client, id string) {
	_ = cli.ContainerUnpause(ctx, id)
}
