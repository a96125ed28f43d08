package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	epi "github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server/api"
)

// defaultRepairs is how many times one episode's sandbox may be rebuilt.
const defaultRepairs = 3

// outsideGrace is how long past a call's own timeout rbx waits for the
// sandbox before it stops waiting (the sandbox is frozen or unreachable):
// the session's kill grace and an engine round trip fit in it.
const outsideGrace = 15 * time.Second

// probeTimeout bounds the engine reads behind an attribution.
const probeTimeout = 10 * time.Second

// survive runs call against ep's sandbox. When the sandbox fails under it
// (call returns an error that is not ctx's), the failure is attributed
// (episode.Attribute); an infrastructure fault is repaired — the sandbox
// removed, a new one rebuilt by replay (episode.Rebuild) — and call runs
// again, up to the server's repair budget per episode. It returns nil
// once call succeeded, or the end that stops the episode; err is ctx's
// error when the client went away. Callers hold ep.mu.
func (s *Server) survive(ctx context.Context, ep *episode, call func(context.Context) error) (*epi.End, error) {
	var prev *epi.End
	for {
		err := call(ctx)
		if err == nil {
			return nil, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		end := s.attribute(ctx, ep, err)
		if prev != nil && epi.Unexplained(end) && end.Reason == prev.Reason {
			end = epi.Reproduced(end)
		}
		s.cfg.log.Warn("serve: sandbox failed under an episode", "episode", ep.rec.ID, "attribution", end.Attribution, "reason", end.Reason, "detail", end.Detail)
		if !end.Repairable() || ep.rec.Recovered >= s.cfg.repairs {
			if end.Repairable() {
				end.Detail = "repairs exhausted: " + end.Detail
			}
			return &end, nil
		}
		s.drop(ep)
		start := now()
		if err := s.rebuild(ctx, ep); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if re, ok := errors.AsType[*epi.RebuildError](err); ok {
				return &re.End, nil
			}
			failed := epi.InfraEnd(epi.ReasonRepairFailed, err.Error())
			return &failed, nil
		}
		ep.rec.Recovered++
		// The repair's time is the infrastructure's, not the episode's.
		ep.deadline = ep.deadline.Add(since(start))
		s.met.recovered.WithLabelValues(end.Reason).Inc()
		s.met.repairDur.Observe(since(start).Seconds())
		s.journalOpen(ctx, ep)
		prev = &end
	}
}

// attribute charges a failure of ep's sandbox, with what the engine says
// of the sandbox when it can tell.
func (s *Server) attribute(ctx context.Context, ep *episode, err error) epi.End {
	return epi.Attribute(err, s.health(ctx, ep))
}

// frozen reports a sandbox its engine shows paused: a step that timed out
// there did not run out of its own time.
func (s *Server) frozen(ctx context.Context, ep *episode) bool {
	return s.health(ctx, ep).Frozen
}

// health is what the engine says of ep's sandbox (sandbox.Prober); zero
// when its backend cannot tell or the probe failed (logged).
func (s *Server) health(ctx context.Context, ep *episode) sandbox.Health {
	p, ok := ep.sb.(sandbox.Prober)
	if !ok {
		return sandbox.Health{}
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	h, err := p.Probe(pctx)
	if err != nil {
		s.cfg.log.Warn("serve: probe sandbox", "episode", ep.rec.ID, "err", err)
	}
	return h
}

// drop removes ep's sandbox now, before the call that found it failed is
// answered, and never recycles it: whatever of the episode's commands
// still waits in it (a frozen sandbox's) can never run after the answer.
// Callers hold ep.mu.
func (s *Server) drop(ep *episode) {
	if ep.sb == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if err := s.rs.DiscardNow(rctx, ep.sb); err != nil {
		s.cfg.log.Warn("serve: remove failed sandbox", "episode", ep.rec.ID, "sandbox", ep.sb.ID(), "err", err)
	}
	cancel()
	ep.sb = nil
	ep.holds.Store(false)
}

// rebuild gives ep a new sandbox at its state: the reference replayed to
// k, then its actions redone and checked. Callers hold ep.mu.
func (s *Server) rebuild(ctx context.Context, ep *episode) error {
	seen := make([]epi.Seen, len(ep.rec.Actions))
	for i, a := range ep.rec.Actions {
		seen[i] = epi.Seen{Step: a.Step, Observation: a.Observation}
	}
	res, err := epi.Rebuild(ctx, s.rs, ep.entry.Task, ep.entry.Ref, ep.rec.K, seen)
	if err != nil {
		return err
	}
	ep.sb, ep.run = res.Sandbox, res.Run
	ep.holds.Store(true)
	return nil
}

// journalOpen saves an open episode's record (a repair, a step).
func (s *Server) journalOpen(ctx context.Context, ep *episode) {
	if s.jr == nil {
		return
	}
	if err := s.jr.put(ctx, ep.snapshotLocked()); err != nil {
		s.cfg.log.Warn("serve: journal episode", "episode", ep.rec.ID, "err", err)
	}
}

// ended ends ep by a failure charged to the task or the infrastructure:
// its sandbox removed (never recycled), the end journaled, nothing sent
// to the curriculum. The answer says who is charged and whether a new
// episode may succeed. Callers hold ep.mu.
func (s *Server) ended(ctx context.Context, ep *episode, end epi.End) *APIError {
	s.drop(ep)
	we := wireEnd(end)
	ep.rec.End = &we
	if err := s.finish(ctx, ep, StateFailed, nil); err != nil {
		s.cfg.log.Warn("serve: journal failed episode", "episode", ep.rec.ID, "err", err)
	}
	s.met.ends.WithLabelValues(string(end.Attribution), end.Reason).Inc()
	var e *APIError
	if end.Attribution == epi.Task {
		e = apiErr(http.StatusUnprocessableEntity, CodeTaskBroken, "episode %s: the task is broken (%s): %s", ep.rec.ID, end.Reason, clip(end.Detail, 2000))
	} else {
		e = apiErr(http.StatusGone, CodeSandboxLost, "episode %s: the sandbox was lost (%s) and could not be rebuilt: %s", ep.rec.ID, end.Reason, clip(end.Detail, 2000))
	}
	return e.With("attribution", string(end.Attribution)).With("reason", end.Reason).With("retryable", end.Retryable).With("recovered", ep.rec.Recovered)
}

func wireEnd(e epi.End) api.End {
	return api.End{Attribution: string(e.Attribution), Reason: e.Reason, Detail: clip(e.Detail, 4000), Retryable: e.Retryable}
}
