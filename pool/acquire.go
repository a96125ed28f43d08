package pool

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Acquire hands out a ready sandbox, never one handed out before. It waits
// for the background filler when none is idle (or creates one itself when
// the pool keeps none), until ctx ends. A sandbox that fails its liveness
// check is discarded and another one taken.
func (p *Pool) Acquire(ctx context.Context) (sandbox.Sandbox, error) {
	start := time.Now()
	defer func() { p.stats.observeWait(time.Since(start)) }()
	for {
		if p.closed.Load() {
			return nil, ErrClosed
		}
		if p.cfg.size == 0 {
			sb, err := p.create(ctx)
			if err != nil {
				return nil, err
			}
			p.stats.inUse.Add(1)
			return sb, nil
		}
		select {
		case sb := <-p.idle:
			p.poke()
			if err := p.healthy(ctx, sb); err != nil {
				p.cfg.log.Warn("pool: discarding a broken sandbox", "pool", p.tmpl.Key, "sandbox", sb.ID(), "err", err)
				p.stats.broken.Add(1)
				p.remove(ctx, sb)
				continue
			}
			p.stats.inUse.Add(1)
			return sb, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("acquire sandbox from pool %s: %w (last create error: %v)", p.tmpl.Key, ctx.Err(), p.stats.lastError())
		}
	}
}

// healthy checks that an idle sandbox still answers (its container may have
// died while it waited). In exec mode the check would cost a process start,
// so only the session is checked.
func (p *Pool) healthy(ctx context.Context, sb sandbox.Sandbox) error {
	if p.cfg.health == 0 || p.tmpl.Spec.Mode != sandbox.ModeSession {
		return nil
	}
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: ":", Timeout: p.cfg.health})
	switch {
	case err != nil:
		return err
	case res.ExitCode != 0 || res.TimedOut || res.SessionLost:
		return fmt.Errorf("liveness check: exit %d, timed out %v, session lost %v", res.ExitCode, res.TimedOut, res.SessionLost)
	}
	return nil
}

// Discard removes a sandbox that was handed out; the pool refills. Removal
// runs in the background so that the caller's next reset does not wait for
// it; Close waits for pending removals.
func (p *Pool) Discard(sb sandbox.Sandbox) {
	if sb == nil {
		return
	}
	p.stats.inUse.Add(-1)
	p.remove(context.Background(), sb)
}

// remove deletes sb in the background, within the concurrency bound.
func (p *Pool) remove(ctx context.Context, sb sandbox.Sandbox) {
	p.stats.discarded.Add(1)
	p.stats.removing.Add(1)
	p.rmWG.Add(1)
	go func() {
		defer p.rmWG.Done()
		defer p.stats.removing.Add(-1)
		p.rmSem <- struct{}{}
		defer func() { <-p.rmSem }()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := sb.Remove(rctx); err != nil {
			p.cfg.log.Warn("pool: remove sandbox", "pool", p.tmpl.Key, "sandbox", sb.ID(), "err", err)
		}
	}()
}

// poke wakes the filler without blocking.
func (p *Pool) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}
