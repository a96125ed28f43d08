package sandbox

import "context"

// Prober is implemented by sandboxes whose health can be read from
// outside, without running anything in them: what an episode's end is
// attributed to (the policy's own limits, or the infrastructure) rests on
// it. Backends without it leave attribution to the error alone.
type Prober interface {
	// Probe reads the sandbox's state from its engine. It never execs in
	// the sandbox, so it answers for a frozen or exhausted sandbox too.
	Probe(ctx context.Context) (Health, error)
}

// Health is a sandbox's state as its engine sees it.
type Health struct {
	// Gone says why the sandbox no longer runs; nil while it runs.
	Gone *GoneError
	// Frozen: the sandbox is paused (its processes do not run: a cgroup
	// freezer, `docker pause`), so no call into it can finish.
	Frozen bool
	// Pids is how many processes the sandbox holds and PidsLimit its
	// limit (0: unknown or unlimited).
	Pids, PidsLimit int64
}

// PidsExhausted reports a sandbox at its process limit: no program can
// start in it (an exec fails to fork), which only its own processes cause.
func (h Health) PidsExhausted() bool {
	return h.PidsLimit > 0 && h.Pids >= h.PidsLimit-1
}
