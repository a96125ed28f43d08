package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server/rock"
)

// episodeLease is a ROCK sandbox that is an episode of the native API: it
// is listed, journaled, counted and expired like one, and stop evaluates
// it as POST /v1/episodes/{id}/evaluate does.
type episodeLease struct {
	s      *Server
	ep     *episode
	sb     sandbox.Sandbox
	meta   map[string]string
	prefix []byte
}

var _ rock.Lease = (*episodeLease)(nil)

func newEpisodeLease(s *Server, ep *episode, info EpisodeInfo) *episodeLease {
	msgs, _ := json.Marshal(info.Messages)
	meta := map[string]string{
		"rbx.kind": "task", "rbx.episode": info.ID, "rbx.task": info.Task,
		"rbx.k": strconv.Itoa(info.K), "rbx.t": strconv.Itoa(info.T), "rbx.purpose": ep.rec.Purpose,
		"rbx.reference_version": strconv.Itoa(info.RefVersion), "rbx.feeds_curriculum": strconv.FormatBool(ep.rec.Feeds),
		"rbx.prefix_messages": strconv.Itoa(len(info.Messages)),
		"rbx.reset_ms":        strconv.FormatFloat(info.Timings.ResetMS, 'f', 1, 64),
		"rbx.trajectory_url":  "/v1/episodes/" + info.ID + "/trajectory",
		"rbx.sandbox":         ep.sb.ID(),
	}
	return &episodeLease{s: s, ep: ep, sb: ep.sb, meta: meta, prefix: msgs}
}

func (l *episodeLease) Sandbox() sandbox.Sandbox    { return l.sb }
func (l *episodeLease) Metadata() map[string]string { return l.meta }
func (l *episodeLease) Prefix() []byte              { return l.prefix }

// KeepAlive restarts the episode's idle timer (--episode-ttl): the ROCK
// API's own timeout (auto_clear_time_minutes) decides when it expires.
func (l *episodeLease) KeepAlive() {
	if l.ep.mu.TryLock() { // busy: in a call, not idle anyway
		if l.ep.rec.State == StateOpen {
			l.ep.used = now()
		}
		l.ep.mu.Unlock()
	}
}

// Gone reports an episode the server ended (its episode_timeout, or it
// was evaluated or closed through the native API).
func (l *episodeLease) Gone() error {
	if l.ep.holds.Load() {
		return nil
	}
	state := "ended"
	if l.ep.mu.TryLock() {
		state = l.ep.rec.State
		l.ep.mu.Unlock()
	}
	return fmt.Errorf("episode %s is %s", l.meta["rbx.episode"], state)
}

// Close ends the episode: verified on stop (the outcome goes to the
// journal, and to the curriculum when the episode feeds it), expired or
// closed otherwise. The sandbox goes back to the pool, which removes it.
func (l *episodeLease) Close(ctx context.Context, how rock.CloseMode) (map[string]string, error) {
	id := l.meta["rbx.episode"]
	if how == rock.CloseVerify {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/v1/episodes/"+id+"/evaluate", nil)
		if err != nil {
			return nil, err
		}
		req.SetPathValue("id", id)
		v, aerr := l.s.evaluate(req)
		if aerr == nil {
			ev := v.(EvaluateResponse)
			meta := map[string]string{"rbx.success": strconv.FormatBool(ev.Success), "rbx.reward": strconv.FormatFloat(ev.Reward, 'g', -1, 64),
				"rbx.score": strconv.FormatFloat(ev.Score, 'g', -1, 64), "rbx.observed": strconv.FormatBool(ev.Observed)}
			if ev.End != nil {
				meta["rbx.attribution"], meta["rbx.end_reason"] = ev.End.Attribution, ev.End.Reason
			}
			return meta, nil
		}
		if aerr.Code != CodeEpisodeFinished && aerr.Code != CodeUnknownEpisode {
			l.end(ctx, StateClosed)
			return nil, fmt.Errorf("verify episode %s: %w", id, aerr)
		}
		return nil, nil // evaluated (or ended) through the native API already
	}
	state := StateClosed
	if how == rock.CloseExpired {
		state = StateExpired
	}
	l.end(ctx, state)
	return nil, nil
}

// end finishes the episode as state when it is still open.
func (l *episodeLease) end(ctx context.Context, state string) {
	l.ep.mu.Lock()
	defer l.ep.mu.Unlock()
	if l.ep.rec.State != StateOpen {
		return
	}
	if err := l.s.finish(context.WithoutCancel(ctx), l.ep, state, nil); err != nil {
		l.s.cfg.log.Warn("serve: journal rock episode", "episode", l.ep.rec.ID, "err", err)
	}
	if state == StateExpired {
		l.s.met.expired.Inc()
	}
}
