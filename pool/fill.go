package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// fill keeps idle + in-flight creations at the target size until the pool
// closes. After a failed creation (engine down, image missing) it backs off
// exponentially up to backoffMax, so a broken engine is not hammered and is
// picked up again when it comes back.
func (p *Pool) fill(ctx context.Context) {
	defer close(p.done)
	var backoff time.Duration
	// In-flight creations never exceed size, so sends never block.
	results := make(chan error, p.cfg.size+1)
	var inflight sync.WaitGroup
	for {
		for need := p.cfg.size - len(p.idle) - int(p.stats.creating.Load()); need > 0 && backoff == 0; need-- {
			p.stats.creating.Add(1)
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				results <- p.createIdle(ctx)
			}()
		}
		var retry <-chan time.Time
		if backoff > 0 {
			retry = time.After(backoff)
		}
		select {
		case <-ctx.Done():
			inflight.Wait()
			return
		case <-p.wake:
		case <-retry:
			backoff = 0
		case err := <-results:
			switch {
			case err == nil:
				backoff = 0
			case backoff == 0:
				backoff = 100 * time.Millisecond
			default:
				backoff = min(2*backoff, p.cfg.backoffMax)
			}
		}
	}
}

// createIdle creates one sandbox and parks it in the idle channel.
func (p *Pool) createIdle(ctx context.Context) error {
	defer p.stats.creating.Add(-1)
	sb, err := p.create(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.cfg.log.Warn("pool: create sandbox", "pool", p.tmpl.Key, "err", err)
		}
		return err
	}
	select {
	case p.idle <- sb:
		return nil
	default: // over target (size shrank or a race): do not keep it
		p.remove(ctx, sb)
		return nil
	}
}

// create makes and prepares one sandbox, removing it if preparing fails.
func (p *Pool) create(ctx context.Context) (sandbox.Sandbox, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()
	start := time.Now()
	sb, err := p.tmpl.Create(ctx, p.rt)
	if err != nil {
		p.stats.fail(err)
		return nil, fmt.Errorf("pool %s: %w", p.tmpl.Key, err)
	}
	p.stats.created.Add(1)
	p.stats.createNanos.Add(int64(time.Since(start)))
	return sb, nil
}

// Close stops refilling, removes the idle sandboxes and waits for pending
// removals. Sandboxes handed out and not yet discarded are the caller's.
func (p *Pool) Close(ctx context.Context) error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	p.stop()
	<-p.done
	var errs []error
	for {
		select {
		case sb := <-p.idle:
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			if err := sb.Remove(rctx); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
				errs = append(errs, err)
			}
			cancel()
			p.stats.discarded.Add(1)
			continue
		default:
		}
		break
	}
	p.rmWG.Wait()
	return errors.Join(errs...)
}
