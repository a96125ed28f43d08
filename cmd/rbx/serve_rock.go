package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/rock"
)

// rockFlags are serve's flags for the ROCK-compatible API (docs/rock.md).
type rockFlags struct {
	enabled     bool
	images      bool
	network     string
	ttl         time.Duration
	sessionIdle time.Duration
}

func (f *rockFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.enabled, "rock", true, "serve the ROCK-compatible sandbox API under /apis/envs/sandbox/v1, so ROLL pipelines run on rbx (docs/rock.md)")
	fl.BoolVar(&f.images, "rock-images", true, "let the ROCK API start plain images (any image other than rbx://TASK@k) that are available locally (see --pull)")
	fl.StringVar(&f.network, "rock-network", sandbox.NetworkNone, "network of plain-image ROCK sandboxes: none or bridge")
	fl.DurationVar(&f.ttl, "rock-ttl", 30*time.Minute, "idle timeout of a ROCK sandbox whose start_async gives no auto_clear_time_minutes")
	fl.DurationVar(&f.sessionIdle, "rock-session-idle", 30*time.Minute, "idle time after which a ROCK session (a bash on a terminal) is closed")
}

func (f *rockFlags) validate() error {
	switch {
	case f.network != sandbox.NetworkNone && f.network != sandbox.NetworkBridge:
		return usageError("--rock-network %q: expected none or bridge", f.network)
	case f.ttl <= 0:
		return usageError("--rock-ttl %v: expected > 0", f.ttl)
	case f.sessionIdle <= 0:
		return usageError("--rock-session-idle %v: expected > 0", f.sessionIdle)
	}
	return nil
}

func (f *rockFlags) option(rt pool.Creator) server.Option {
	if !f.images {
		rt = nil
	}
	return server.WithROCK(rt, f.network, rock.WithTTL(f.ttl, 24*time.Hour), rock.WithSessionIdle(f.sessionIdle))
}
