package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/store"
	"github.com/rbx-sandbox/rbx/dashboard"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
)

// serveOptions are the flags of `rbx serve`.
type serveOptions struct {
	tasks     []string // directories, each walked
	addr      string
	tokenFile string
	tlsCert   string
	tlsKey    string
	insecure  bool
	pool      int
	strategy  string
	state     string
	ttl       time.Duration
	maxShare  float64
	evidence  time.Duration
	maxGroup  int
	repairs   int
	// noOpenEnv turns OpenEnv's protocol off; groupWindow is how long a
	// keyed group takes members.
	noOpenEnv   bool
	groupWindow time.Duration
	// reloadEvery is how often --tasks is checked for changes (0: on
	// SIGHUP only).
	reloadEvery time.Duration
	// waitForTasks starts with no task when --tasks holds none yet (a
	// tasks volume another pod fills): the reload serves them.
	waitForTasks bool
	maxOpen      int
	maxBody      int64
	series       int
	compare      string
	services     []string
	drain        time.Duration
	refresh      bool
	repeats      int
	rock         rockFlags
	capacity     capacityFlags
	prefix       prefixFlags
	rt           runtimeFlags
	cur          curriculumFlags
}

func newServeCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve --tasks DIR",
		Short: "Serve episodes to RL trainers over HTTP: reset, step, evaluate, fork",
		Long: `serve loads every task and reference trajectory under --tasks (recursively: tasks
*.yaml, trajectories *.json with "steps" and *.jsonl, one reference per task), registers
them with the curriculum, warms a sandbox pool per task and answers the HTTP/JSON API
under /v1 (documented at /v1/openapi.json; see docs/serve.md).

It listens on loopback by default; any other address needs --token-file (clients send
"Authorization: Bearer TOKEN") and HTTPS (--tls-cert/--tls-key) so that the token does
not cross the network in clear text, or --insecure when a TLS proxy or a private link
protects it; --runtime local (host processes, not isolated) is refused there. The curriculum, every outcome and the episode logs are
kept in the --state SQLite database: a restarted server resumes the curriculum, removes
the sandboxes of the dead process and lists its open episodes as lost.
Ctrl-C or SIGTERM drains: in-flight requests finish (or are cancelled after --drain),
every sandbox is removed and the database closed. The listening address is printed on
stdout.

With --refresh-references, a successful policy episode with fewer actions than the
reference's suffix from its k is re-verified in the background (--refresh-repeats fresh
sandboxes, the prefilter's check) and adopted as the task's next reference version;
GET /v1/tasks/TASK/references lists the versions (docs/reference-refresh.md).

--decision and the flags after it set when the curriculum moves on: by default when a
Beta posterior on recent outcomes gives P(p > θ) ≥ 1−α on at least --min-successes
successes; or the window rule, or Wald's sequential test (docs/curriculum.md#decision-rules).`,
		Example: `  rbx serve --tasks examples/ --strategy search-learn --state serve.db
  rbx serve --tasks runs/ --addr 0.0.0.0:8700 --token-file token.txt --tls-cert cert.pem --tls-key key.pem --pool 8`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.tasks, "tasks", nil, "directory of tasks and reference trajectories (required; repeatable: every directory is served, e.g. a volume and a mounted ConfigMap)")
	f.StringVar(&o.addr, "addr", "127.0.0.1:8700", "listen address (port 0 picks a free one)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token clients must send (required off loopback)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (chain) file; with --tls-key")
	f.StringVar(&o.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	f.BoolVar(&o.insecure, "insecure", false, "off loopback, accept to send the token over plain HTTP (a TLS proxy or a private link protects it)")
	f.IntVar(&o.pool, "pool", 0, "the most warm sandboxes one sandbox class keeps (tasks of one image and limits share a class; --warm is the total); 0: no bound but --warm")
	f.StringVar(&o.strategy, "strategy", string(curriculum.SearchLearn), "curriculum: sequential, heuristic, parallel or search-learn")
	f.StringVar(&o.state, "state", "rbx-serve.db", "SQLite database for the curriculum, outcomes and episode logs")
	f.DurationVar(&o.ttl, "episode-ttl", 10*time.Minute, "idle time after which an episode expires and its sandbox is removed")
	f.Float64Var(&o.maxShare, "max-intervention-share", 0.5, "shift filter: flag episodes whose intervened share of steps or tokens is above this")
	f.DurationVar(&o.evidence, "evidence-interval", time.Second, "least time between two evidence calls on one episode (each replays it in a scratch sandbox); 0: no limit")
	f.IntVar(&o.maxGroup, "max-group", 64, "largest group one reset may ask for")
	f.IntVar(&o.repairs, "repairs", 3, "times one episode's sandbox may be rebuilt by replay after infrastructure faults, and whether episodes open at a restart resume (0: never; they end attributed to the infrastructure, or lost; docs/durability.md)")
	f.BoolVar(&o.noOpenEnv, "no-openenv", false, "do not serve OpenEnv's protocol (/ws, /health, /schema, /metadata, /mcp; under /TOKEN/ with --token-file; docs/openenv.md)")
	f.DurationVar(&o.reloadEvery, "reload-interval", 10*time.Second, "how often --tasks is checked for new tasks (0: only on SIGHUP); new tasks are served without a restart, changed ones refused and named in the log")
	f.BoolVar(&o.waitForTasks, "wait-for-tasks", false, "start even when --tasks holds no task yet (creating the directory if missing) and serve tasks as the reload finds them: for a tasks volume another pod fills (deploy/kubernetes)")
	f.DurationVar(&o.groupWindow, "group-window", 10*time.Minute, "how long after its first reset a keyed group (resets with one group_key, or OpenEnv resets with one seed or group) takes new members at its k, unless one of its episodes ended")
	f.IntVar(&o.maxOpen, "max-episodes", 256, "episodes open at once, group members and forks counted; beyond it resets get 429 too_many_episodes")
	f.Int64Var(&o.maxBody, "max-body", 1<<20, "largest request body in bytes")
	f.IntVar(&o.series, "task-series", 100, "per-task Prometheus series up to this many tasks; beyond, they are summed under task=\"_all\" (0: always)")
	f.StringVar(&o.compare, "compare", string(replayer.CompareNormalized), "replay output comparison: exact, normalized, normalized_hex (also masks hex ids) or ignore")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	f.DurationVar(&o.drain, "drain", 30*time.Second, "on shutdown, how long in-flight requests may take before they are cancelled")
	f.BoolVar(&o.refresh, "refresh-references", false, "adopt a successful policy episode shorter than the reference's suffix as the task's next reference version, after --refresh-repeats checks in fresh sandboxes (docs/reference-refresh.md)")
	f.IntVar(&o.repeats, "refresh-repeats", 3, "with --refresh-references: how many fresh-sandbox replays and verifications a candidate reference must pass")
	o.rock.register(cmd)
	o.prefix.register(f)
	o.capacity.registerServe(f)
	o.rt.register(cmd)
	o.cur.register(cmd)
	return cmd
}

func (o *serveOptions) validate() (token string, err error) {
	switch {
	case len(o.tasks) == 0 || slices.Contains(o.tasks, ""):
		return "", usageError("--tasks DIR is required: the tasks and reference trajectories to serve")
	case o.pool < 0:
		return "", usageError("--pool %d: expected ≥ 0", o.pool)
	case o.ttl <= 0:
		return "", usageError("--episode-ttl %v: expected > 0", o.ttl)
	case o.maxShare < 0 || o.maxShare > 1:
		return "", usageError("--max-intervention-share %v: expected 0 to 1", o.maxShare)
	case o.evidence < 0:
		return "", usageError("--evidence-interval %v: expected ≥ 0", o.evidence)
	case o.state == "":
		return "", usageError("--state: expected a database path")
	case o.repeats < 1:
		return "", usageError("--refresh-repeats %d: expected ≥ 1", o.repeats)
	case o.rock.validate() != nil:
		return "", o.rock.validate()
	case o.series < 0:
		return "", usageError("--task-series %d: expected ≥ 0", o.series)
	case o.maxOpen < 1:
		return "", usageError("--max-episodes %d: expected ≥ 1", o.maxOpen)
	case o.waitForTasks && o.reloadEvery <= 0:
		return "", usageError("--wait-for-tasks needs --reload-interval > 0: with no task and no periodic reload, only a SIGHUP would ever serve one")
	}
	if _, err := parseStrategy(o.strategy); err != nil {
		return "", err
	}
	if err := o.capacity.validate(); err != nil {
		return "", err
	}
	if _, err := o.cur.options(); err != nil {
		return "", err
	}
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return "", usageError("--token-file: %v", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return "", usageError("--token-file %s is empty", o.tokenFile)
		}
	}
	loop, err := server.Loopback(o.addr)
	if err != nil {
		return "", usageError("--addr: %v", err)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return "", usageError("--tls-cert and --tls-key go together")
	}
	switch {
	case loop:
	case token == "":
		return "", usageError("--addr %s is not a loopback address: refusing to serve without --token-file", o.addr)
	case o.tlsCert == "" && !o.insecure:
		return "", usageError("--addr %s is not a loopback address: refusing to send the bearer token over plain HTTP; "+
			"serve HTTPS with --tls-cert/--tls-key, or pass --insecure when a TLS proxy or a private link protects it", o.addr)
	case o.rt.name == "local":
		return "", usageError("--addr %s is not a loopback address: refusing to serve --runtime local there "+
			"(policy commands would run as plain host processes, not isolated)", o.addr)
	}
	return token, nil
}

func parseStrategy(name string) (curriculum.Strategy, error) {
	for _, st := range curriculum.Strategies {
		if string(st) == name {
			return st, nil
		}
	}
	return "", usageError("--strategy %q: expected sequential, heuristic, parallel or search-learn", name)
}

// stackOptions are serve's stack: a large output excerpt, since
// observations go to a policy; orphans reaped at start and every minute;
// every task's image present before the first reset; warm pools shared
// out of the budget by demand; recycling per --recycle.
func (o *serveOptions) stackOptions(s Streams) []stackOption {
	stage := o.pool // --prefix-cache-stage -1: as many as a class keeps, or a group of 8
	if stage == 0 {
		stage = 8
	}
	return []stackOption{withServiceFlags(o.services), withCompare(o.compare), withReplayer(replayer.WithExcerpt(64 << 10)),
		withPrefixCache(&o.prefix, stage), withOrphansReaped(), withReapLoop(), withImages(),
		withBudget(&o.capacity), withWarming(o.pool), withResetter(o.pool),
		withRecycling(func(rt sandbox.Runtime) bool { return o.capacity.recycling(s.ErrOut, rt, o.rt.agent) })}
}

// openServeState opens the curriculum database with the chosen strategy
// and parameters (validate checked them). The stored outcomes are replayed
// under these parameters: changing them across a restart re-decides the
// curriculum from the same outcomes.
func openServeState(ctx context.Context, o *serveOptions) (*curriculum.Engine, *store.Store, error) {
	st, _ := parseStrategy(o.strategy)
	opts, err := o.cur.options()
	if err != nil {
		return nil, nil, err
	}
	eng, db, err := store.OpenEngine(ctx, o.state, nil, append(opts, curriculum.WithStrategy(st))...)
	if err != nil {
		return nil, nil, fmt.Errorf("open --state %s: %w", o.state, err)
	}
	return eng, db, nil
}

func runServe(ctx context.Context, s Streams, log *slog.Logger, o *serveOptions) error {
	token, err := o.validate()
	if err != nil {
		return err
	}
	tc, err := o.tlsConfig()
	if err != nil {
		return err
	}
	// The fingerprint the reload compares with is taken before the tasks
	// are read: files that arrive while the server starts (a tasks volume
	// another pod fills) are then seen as a change, not taken as loaded.
	loadedFP, _ := tasksFingerprint(o.tasks)
	entries, err := o.startTasks(s)
	if err != nil {
		return err
	}
	tasks := make([]*task.Task, len(entries))
	for i, e := range entries {
		tasks[i] = e.Task
	}
	if err := o.rt.admit(tasks...); err != nil {
		return err
	}
	o.capacity.findAgent(s.ErrOut, &o.rt)
	b, err := newStack(s, log, "serve", o.rt, o.stackOptions(s)...)
	if err != nil {
		return err
	}
	st, err := b.open(ctx, server.Tasks(entries)...)
	if err != nil {
		return err
	}
	rt := st.rt
	eng, db, err := openServeState(ctx, o)
	if err != nil {
		return errors.Join(err, st.closeWithin(context.WithoutCancel(ctx)))
	}
	opts := []server.Option{server.WithToken(token), server.WithEpisodeTTL(o.ttl),
		server.WithMaxInterventionShare(o.maxShare), server.WithMaxGroup(o.maxGroup), server.WithMaxEpisodes(o.maxOpen), server.WithMaxBody(o.maxBody),
		server.WithJournalDB(db.DB()), server.WithLogger(log), server.WithEvidenceInterval(o.evidence), server.WithPrewarm(o.capacity.prewarm), server.WithTaskSeries(o.series), server.WithRepairs(o.repairs)}
	if o.refresh {
		opts = append(opts, server.WithReferenceRefresh(rt, o.repeats))
	}
	if o.rock.enabled {
		opts = append(opts, o.rock.option(rt))
	}
	opts = append(opts, server.WithGroupWindow(o.groupWindow))
	if !o.noOpenEnv {
		opts = append(opts, server.WithOpenEnv())
	}
	opts = append(opts, isolationOption(ctx, s.ErrOut, rt, o.rt))
	srv, err := server.New(ctx, st.rs, st.rp, eng, entries, opts...)
	if err != nil {
		return errors.Join(err, st.closeWithin(context.WithoutCancel(ctx)), db.Close())
	}
	if n := srv.Lost(); n > 0 {
		fmt.Fprintf(s.ErrOut, "%d episode(s) open in a previous run were lost (GET /v1/episodes?state=lost)\n", n)
	}
	ln, url, err := o.listen(tc)
	var h http.Handler // the API, with the dashboard at /ui
	if err == nil {
		if h, err = dashboard.Mount(srv.Handler(), dashboard.WithToken(token), dashboard.WithLogger(log)); err != nil {
			_ = ln.Close()
		} else {
			fmt.Fprintf(s.ErrOut, "rbx serve: dashboard at %s%s/\n", url, dashboard.Prefix)
		}
	}
	if err == nil {
		fmt.Fprintf(s.ErrOut, "rbx serve: %d task(s), strategy %s, %s runtime, budget %d sandboxes, prefix cache %s, state %s\n", len(entries), eng.Strategy(), rt.Name(), st.budget.Max(), o.prefix.mode, o.state)
		fmt.Fprintf(s.Out, "listening on %s\n", url)
		rctx, stopReload := context.WithCancel(ctx)
		reloaded := make(chan struct{})
		go func() { defer close(reloaded); newReloader(o, s, log, srv, rt, entries, loadedFP).run(rctx) }()
		err = server.Listen(ctx, ln, h, o.drain)
		stopReload()
		<-reloaded // no reload runs into the drain
	}
	// Drain: every sandbox removed; runtime, journal and curriculum closed.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	err = errors.Join(err, srv.Close(cctx), st.closeWithin(cctx), db.Close())
	fmt.Fprintln(s.ErrOut, "rbx serve: drained")
	return err
}

// startTasks loads the tasks served from the start; with --wait-for-tasks
// none is no error (the directory is made when missing), and is said.
func (o *serveOptions) startTasks(s Streams) ([]server.Entry, error) {
	if !o.waitForTasks {
		return discoverServeTasks(s, o.tasks)
	}
	for _, dir := range o.tasks {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, usageError("--tasks: %v", err)
		}
	}
	entries, err := discoverServeTasks(s, o.tasks)
	if errors.Is(err, server.ErrNoEntries) {
		fmt.Fprintf(s.ErrOut, "rbx serve: no task under %s yet: serving none until a reload finds some (every %v, or SIGHUP)\n", strings.Join(o.tasks, ", "), o.reloadEvery)
		return nil, nil
	}
	return entries, err
}

// discoverServeTasks loads the tasks and references under dirs (see
// server.References) and reports what it skipped.
func discoverServeTasks(s Streams, dirs []string) ([]server.Entry, error) {
	items, err := prefilter.Discover(dirs...)
	if err != nil {
		return nil, usageError("--tasks: %v", err)
	}
	entries, skipped, err := server.References(items)
	for _, e := range skipped {
		fmt.Fprintf(s.ErrOut, "warning: %v\n", e)
	}
	if err != nil {
		return nil, usageError("--tasks %s: %w", strings.Join(dirs, ", "), err)
	}
	return entries, nil
}
