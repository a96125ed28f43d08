package main

import (
	"log/slog"
	"time"

	"github.com/spf13/pflag"

	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/reset"
)

// prefixFlags are the prefix cache's flags (serve, probe).
type prefixFlags struct {
	mode  string
	mib   int64
	age   time.Duration
	stage int
}

func (p *prefixFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.mode, "prefix-cache", "on", "reuse the state after the reusable prefix of [0, k) instead of replaying it for every reset: on or off (docs/prefix-cache.md)")
	f.Int64Var(&p.mib, "prefix-cache-mib", 512, "memory bound of the prefix cache, MiB (least recently used entries go first)")
	f.DurationVar(&p.age, "prefix-cache-age", time.Hour, "age bound of a prefix cache entry")
	f.IntVar(&p.stage, "prefix-cache-stage", -1, "sandboxes per task restored ahead of resets to the entry the last reset used (-1: as many as --pool, 8 without one; 0: none)")
}

// options returns the resetter options for the cache, none when off;
// poolSize is what staging defaults to.
func (p *prefixFlags) options(log *slog.Logger, poolSize int) ([]reset.Option, error) {
	switch p.mode {
	case "off":
		return nil, nil
	case "on":
	default:
		return nil, usageError("--prefix-cache %q: expected on or off", p.mode)
	}
	if p.mib < 1 {
		return nil, usageError("--prefix-cache-mib %d: expected ≥ 1", p.mib)
	}
	c, err := prefix.New(prefix.WithMaxBytes(p.mib<<20), prefix.WithMaxAge(p.age), prefix.WithLogger(log))
	if err != nil {
		return nil, usageError("--prefix-cache-age: %v", err)
	}
	stage := p.stage
	if stage < 0 {
		stage = poolSize
	}
	return []reset.Option{reset.WithPrefixCache(c), reset.WithStaging(stage)}, nil
}
