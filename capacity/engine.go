package capacity

import (
	"context"
	"fmt"
	"runtime"
)

// DefaultEngineOps is how many engine operations (container creations and
// removals) a process runs at once by default: two per core. The engine
// does this work on the same cores, and driven harder it only queues it
// (on this 2-core machine, Docker 20.10 under ~40 concurrent creations
// and removals stopped answering until restarted).
func DefaultEngineOps() int { return max(2, 2*runtime.GOMAXPROCS(0)) }

// SetEngineOps bounds the engine operations the budget's holders run at
// once, whatever their class (n ≥ 1; default DefaultEngineOps). Call it
// before the budget is used.
func (b *Budget) SetEngineOps(n int) error {
	if n < 1 {
		return fmt.Errorf("engine operations %d: expected ≥ 1", n)
	}
	b.ops = make(chan struct{}, n)
	return nil
}

// EngineOps is how many engine operations the budget allows at once.
func (b *Budget) EngineOps() int { return cap(b.ops) }

// Engine waits for one of the engine operations the budget allows at
// once and returns its release, or ctx's error.
func (b *Budget) Engine(ctx context.Context) (release func(), err error) {
	select {
	case b.ops <- struct{}{}:
		return func() { <-b.ops }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
