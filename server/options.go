package server

import (
	"database/sql"
	"fmt"

	"github.com/rbx-sandbox/rbx/pool"
	"io"
	"log/slog"
	"time"
)

// config holds the server's settings.
type config struct {
	token    string
	ttl      time.Duration
	maxBody  int64
	maxGroup int
	openenv  *openenvConfig // nil: OpenEnv's protocol is off (WithOpenEnv)
	// groupWindow is how long a keyed group takes new members (WithGroupWindow).
	groupWindow time.Duration
	maxOpen     int
	maxSteps    int
	maxShare    float64
	excerpt     int
	dbPath      string
	db          *sql.DB
	log         *slog.Logger
	refresh     *prefilterChecker // nil: reference refresh is off
	evidence    *evidenceConfig   // nil: the evidence route's defaults
	rock        *rockConfig       // nil: no ROCK-compatible API
	prewarm     prewarm
	series      int // per-task metric series up to this many tasks
	// repairs is how many times one episode's sandbox may be rebuilt
	// after infrastructure faults (WithRepairs).
	repairs int
	// isolation is what /healthz says of the sandboxes' isolation and
	// of the operator's task policy.
	isolation map[string]any
}

// WithIsolation has /healthz report the isolation sandboxes get (the
// runtime's report, sandbox.Isolation) and the operator's task policy
// (admission.Policy), under "isolation" and "task_policy".
func WithIsolation(iso any, taskPolicy any) Option {
	return func(c *config) error {
		c.isolation = map[string]any{"isolation": iso, "task_policy": taskPolicy}
		return nil
	}
}

// prewarm names the tasks whose classes are warmed at start-up.
type prewarm struct {
	all bool
	ids map[string]bool
}

// WithPrewarm warms the sandbox classes of the tasks named at start-up
// ("all": every task's), before any reset asks for them (default: none;
// warming follows demand).
func WithPrewarm(ids []string) Option {
	return func(c *config) error {
		c.prewarm = prewarm{ids: map[string]bool{}}
		for _, id := range ids {
			if id == "all" {
				c.prewarm.all = true
			}
			c.prewarm.ids[id] = true
		}
		return nil
	}
}

func defaults() config {
	return config{ttl: 10 * time.Minute, maxBody: 1 << 20, maxGroup: 64, groupWindow: 10 * time.Minute, maxOpen: 256, maxSteps: 256, maxShare: 0.5, series: defaultTaskSeries, repairs: defaultRepairs,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// WithRepairs sets how many times one episode's sandbox may be rebuilt by
// replay after infrastructure faults (default 3; 0: never, an
// infrastructure fault ends the episode, attributed and retryable).
func WithRepairs(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("repairs %d: expected ≥ 0", n)
		}
		c.repairs = n
		return nil
	}
}

// Option configures a Server.
type Option func(*config) error

// WithToken requires "Authorization: Bearer TOKEN" on every route but
// /healthz (default: no token; the command refuses to listen beyond
// loopback without one).
func WithToken(token string) Option {
	return func(c *config) error { c.token = token; return nil }
}

// WithEpisodeTTL sets how long an episode may stay idle before it expires
// and its sandbox is removed; finished episodes stay listed in memory for
// as long (default 10m).
func WithEpisodeTTL(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("episode ttl %v: expected > 0", d)
		}
		c.ttl = d
		return nil
	}
}

// WithMaxBody limits request bodies (default 1 MiB); larger ones get
// too_large.
func WithMaxBody(n int64) Option {
	return func(c *config) error {
		if n < 1024 {
			return fmt.Errorf("max body %d: expected ≥ 1024 bytes", n)
		}
		c.maxBody = n
		return nil
	}
}

// WithMaxGroup limits the group size of one reset (default 64).
func WithMaxGroup(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max group %d: expected ≥ 1", n)
		}
		c.maxGroup = n
		return nil
	}
}

// WithMaxEpisodes limits the episodes open at once, every member of a
// group and every fork counted (default 256): a reset or fork beyond it
// gets 429 too_many_episodes with Retry-After, so that a runaway trainer
// cannot start sandboxes without bound.
func WithMaxEpisodes(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max episodes %d: expected ≥ 1", n)
		}
		c.maxOpen = n
		return nil
	}
}

// WithMaxSteps limits the policy steps of one episode (default 256); the
// step that reaches it reports truncated, later ones get step_limit.
func WithMaxSteps(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max steps %d: expected ≥ 1", n)
		}
		c.maxSteps = n
		return nil
	}
}

// WithMaxInterventionShare sets the shift filter: an evaluated episode
// whose intervened share of steps (or of tokens) exceeds x reports
// shift_exceeded (default 0.5).
func WithMaxInterventionShare(x float64) Option {
	return func(c *config) error {
		if x < 0 || x > 1 {
			return fmt.Errorf("max intervention share %v: expected 0 ≤ x ≤ 1", x)
		}
		c.maxShare = x
		return nil
	}
}

// WithJournal persists episode logs in the state database at path, on a
// handle of the journal's own (statedb.Open). Default: none, episodes live
// in memory only. To share the curriculum's handle use WithJournalDB.
func WithJournal(path string) Option {
	return func(c *config) error { c.dbPath = path; return nil }
}

// WithJournalDB persists episode logs in db, a handle from statedb.Open
// (usually the curriculum store's, store.Store.DB) that the caller closes
// after the Server. It takes precedence over WithJournal.
func WithJournalDB(db *sql.DB) Option {
	return func(c *config) error {
		if db == nil {
			return fmt.Errorf("journal database: nil handle")
		}
		c.db = db
		return nil
	}
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

// WithReferenceRefresh turns reference refresh on (default off; see
// docs/reference-refresh.md): a successful policy episode with fewer
// actions than the reference's suffix from its k is re-verified in the
// background, repeats times in fresh sandboxes created on rt (the
// prefilter's check, one sandbox at a time), and adopted as the task's
// next reference version when every repeat passes.
func WithReferenceRefresh(rt pool.Creator, repeats int) Option {
	return func(c *config) error {
		if rt == nil {
			return fmt.Errorf("reference refresh: a runtime is required")
		}
		if repeats < 1 {
			return fmt.Errorf("reference refresh repeats %d: expected ≥ 1", repeats)
		}
		c.refresh = &prefilterChecker{rt: rt, repeats: repeats}
		return nil
	}
}

// WithGroupWindow sets how long after its first reset a keyed group (resets
// with one group key, a GRPO group's members each in its own session)
// takes new members at its k, unless one of its episodes ended before
// (default 10 minutes).
func WithGroupWindow(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("group window %s: expected > 0", d)
		}
		c.groupWindow = d
		return nil
	}
}
