// Package server is `rbx serve`: an HTTP/JSON reset backend for RL
// trainers (docs/serve.md). A trainer resets groups of episodes to a
// checkpoint the curriculum picks, steps them with OpenAI tool calls,
// evaluates them with the task's verifier (the outcome feeds the
// curriculum), and may fork an episode at step t to continue it with
// intervened actions (rollout-time intervention), with a shift filter on
// the intervened share.
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/server/openenv"
	"github.com/rbx-sandbox/rbx/server/rock"
)

// Server serves episodes over HTTP. Create it with New, mount Handler,
// and Close it to remove every sandbox it handed out.
type Server struct {
	cfg     config
	cat     catalog
	rs      *reset.Resetter
	eng     *curriculum.Engine
	refs    *references
	rf      *refresher       // nil: reference refresh is off
	rock    *rock.Handler    // nil: the ROCK-compatible API is off
	oe      *openenv.Handler // nil: OpenEnv's protocol is off
	stopCtx context.Context  // ends at Close
	adoptMu sync.RWMutex     // adoption excludes resets' and outcomes' curriculum calls
	jr      *journal
	met     *metrics
	hist    *history
	groups  *keyedGroups // open keyed groups (ResetRequest.GroupKey)
	reload  reloads      // AddTasks' lock and digests
	evl     evidenceLimiter
	vchecks verifierChecks
	mux     *http.ServeMux
	routes  []string
	mu      sync.Mutex
	eps     map[string]*episode
	pending int // --max-episodes slots claimed by resets and forks in flight
	closed  bool
	lost    int
	resumed int // episodes a previous process left open, taken back
	started time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
}

// New opens the journal (marking episodes a previous process left open as
// lost) and the reference versions stored in it, registers every entry's
// task with the curriculum at its current version, warms the sandbox
// classes of the tasks WithPrewarm names (no sandbox exists before the
// first reset otherwise) and starts the expiry loop. Episodes continue the replay runs rs hands out;
// rp replays candidate references when reference refresh is on.
func New(ctx context.Context, rs *reset.Resetter, rp *replayer.Replayer, eng *curriculum.Engine, entries []Entry, opts ...Option) (*Server, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	cat, err := newCatalog(entries)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, cat: cat, refs: newReferences(cat), rs: rs, eng: eng, eps: map[string]*episode{},
		hist: newHistory(historyMax), groups: newKeyedGroups(cfg.groupWindow, 4*cfg.maxOpen), started: time.Now(), stop: make(chan struct{})}
	switch {
	case cfg.db != nil:
		s.jr, s.lost, err = newJournal(ctx, cfg.db, cfg.repairs > 0)
	case cfg.dbPath != "":
		s.jr, s.lost, err = openJournal(ctx, cfg.dbPath, cfg.repairs > 0)
	}
	if err != nil {
		return nil, err
	}
	if s.jr != nil {
		if err := errors.Join(s.jr.loadHistory(ctx, s.hist), s.restoreReferences(ctx)); err != nil {
			return nil, errors.Join(err, s.jr.close())
		}
		if cfg.repairs > 0 {
			if err := s.resumeOpen(ctx); err != nil {
				return nil, errors.Join(err, s.jr.close())
			}
		}
	}
	if err := s.registerNew(); err != nil { // one commit, not one per task
		if s.jr != nil {
			err = errors.Join(err, s.jr.close())
		}
		return nil, err
	}
	for _, id := range cat.ids() {
		err := s.registerTask(id)
		if err != nil {
			err = fmt.Errorf("register task %q with the curriculum: %w", id, err)
		} else if cfg.prewarm.all || cfg.prewarm.ids[id] {
			if err = rs.Warm(cat[id].Task); err != nil {
				err = fmt.Errorf("warm pool of task %q: %w", id, err)
			}
		}
		if err != nil {
			if s.jr != nil {
				err = errors.Join(err, s.jr.close())
			}
			return nil, err
		}
	}
	s.met = newMetrics(s)
	s.met.lost.Add(float64(s.lost))
	s.routes = s.register()
	s.mountROCK()
	s.stopCtx = stopContext(s.stop)
	if err := s.mountOpenEnv(); err != nil {
		close(s.stop)
		if s.jr != nil {
			err = errors.Join(err, s.jr.close())
		}
		return nil, err
	}
	s.wg.Add(1)
	go s.expireLoop()
	if cfg.refresh != nil {
		cfg.refresh.rp, cfg.refresh.log, cfg.refresh.budget = rp, cfg.log, rs.Budget()
		s.rf = newRefresher(*cfg.refresh, s.met.reg)
		s.wg.Add(1)
		go s.refreshLoop()
	}
	return s, nil
}

// Lost is how many episodes a previous server process left open, by a
// crash or cut by its drain (they are marked lost in the journal and
// listed with state=lost).
func (s *Server) Lost() int { return s.lost }

// Handler is the HTTP API.
func (s *Server) Handler() http.Handler { return s.middleware(s.mux) }

// Routes lists the registered "METHOD /path" patterns (the OpenAPI test
// checks each is documented).
func (s *Server) Routes() []string { return append([]string(nil), s.routes...) }

// Close refuses new episodes, removes every open episode's sandbox, stops
// the expiry loop and closes the journal. Episodes still open keep their
// journal entry open (their actions saved): no client closed them, they
// were cut, so the next server process reports them lost with those of a
// crash (Lost, state=lost) rather than as closed. Call it after the HTTP
// server stopped taking requests.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	eps := s.eps
	s.eps = map[string]*episode{}
	s.mu.Unlock()
	close(s.stop)
	s.wg.Wait()
	errs := []error{s.closeROCK(ctx)}
	for _, ep := range eps {
		ep.mu.Lock()
		if ep.rec.State == StateOpen {
			errs = append(errs, s.finish(ctx, ep, StateOpen, nil))
		}
		ep.mu.Unlock()
	}
	if s.jr != nil {
		errs = append(errs, s.jr.close())
	}
	return errors.Join(errs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
