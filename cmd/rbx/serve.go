package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/store"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
)

// serveOptions are the flags of `rbx serve`.
type serveOptions struct {
	tasks     string
	addr      string
	tokenFile string
	pool      int
	strategy  string
	state     string
	ttl       time.Duration
	maxShare  float64
	maxGroup  int
	maxBody   int64
	compare   string
	services  []string
	drain     time.Duration
	rt        runtimeFlags
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
"Authorization: Bearer TOKEN"). The curriculum, every outcome and the episode logs are
kept in the --state SQLite database: a restarted server resumes the curriculum, removes
the sandboxes of the dead process and lists its open episodes as lost.
Ctrl-C or SIGTERM drains: in-flight requests finish (or are cancelled after --drain),
every sandbox is removed and the database closed. The listening address is printed on
stdout.`,
		Example: `  rbx serve --tasks examples/ --strategy search-learn --state serve.db
  rbx serve --tasks runs/ --addr 0.0.0.0:8700 --token-file token.txt --pool 8`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tasks, "tasks", "", "directory of tasks and reference trajectories (required)")
	f.StringVar(&o.addr, "addr", "127.0.0.1:8700", "listen address (port 0 picks a free one)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token clients must send (required off loopback)")
	f.IntVar(&o.pool, "pool", 4, "warm sandboxes kept per task")
	f.StringVar(&o.strategy, "strategy", string(curriculum.SearchLearn), "curriculum: sequential, heuristic, parallel or search-learn")
	f.StringVar(&o.state, "state", "rbx-serve.db", "SQLite database for the curriculum, outcomes and episode logs")
	f.DurationVar(&o.ttl, "episode-ttl", 10*time.Minute, "idle time after which an episode expires and its sandbox is removed")
	f.Float64Var(&o.maxShare, "max-intervention-share", 0.5, "shift filter: flag episodes whose intervened share of steps or tokens is above this")
	f.IntVar(&o.maxGroup, "max-group", 64, "largest group one reset may ask for")
	f.Int64Var(&o.maxBody, "max-body", 1<<20, "largest request body in bytes")
	f.StringVar(&o.compare, "compare", string(replayer.CompareNormalized), "replay output comparison: exact, normalized, normalized_hex (also masks hex ids) or ignore")
	f.StringArrayVar(&o.services, "service", nil, "override a task service URL: NAME=URL (repeatable)")
	f.DurationVar(&o.drain, "drain", 30*time.Second, "on shutdown, how long in-flight requests may take before they are cancelled")
	o.rt.register(cmd)
	return cmd
}

func (o *serveOptions) validate() (token string, err error) {
	switch {
	case o.tasks == "":
		return "", usageError("--tasks DIR is required: the tasks and reference trajectories to serve")
	case o.pool < 0:
		return "", usageError("--pool %d: expected ≥ 0", o.pool)
	case o.ttl <= 0:
		return "", usageError("--episode-ttl %v: expected > 0", o.ttl)
	case o.maxShare < 0 || o.maxShare > 1:
		return "", usageError("--max-intervention-share %v: expected 0 to 1", o.maxShare)
	case o.state == "":
		return "", usageError("--state: expected a database path")
	}
	if _, err := parseStrategy(o.strategy); err != nil {
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
	loop, err := loopback(o.addr)
	if err != nil {
		return "", err
	}
	if !loop && token == "" {
		return "", usageError("--addr %s is not a loopback address: refusing to serve without --token-file", o.addr)
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

// loopback reports whether addr only listens on the loopback interface.
func loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, usageError("--addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// listen serves h on ln until ctx is cancelled, then drains.
func listen(ctx context.Context, ln net.Listener, h http.Handler, drain time.Duration) error {
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return reqCtx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil { // in-flight requests took too long: cancel them
		cancelReqs()
		return errors.Join(srv.Close(), nil)
	}
	return nil
}

// newServeResetter builds the replayer and resetter serve uses: a large
// output excerpt, since observations go to a policy.
func newServeResetter(rt pool.Creator, o *serveOptions, log *slog.Logger) (*replayer.Replayer, *reset.Resetter, error) {
	services, err := parseServices(o.services)
	if err != nil {
		return nil, nil, err
	}
	rp, err := replayer.New(replayer.WithCompare(replayer.Comparison(o.compare)), replayer.WithServices(services),
		replayer.WithLogger(log), replayer.WithExcerpt(64<<10))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --compare: %w", errUsage, err)
	}
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(o.pool)), reset.WithLogger(log))
	return rp, rs, err
}

// openServeState opens the curriculum database with the chosen strategy.
func openServeState(ctx context.Context, o *serveOptions) (*curriculum.Engine, *store.Store, error) {
	st, _ := parseStrategy(o.strategy)
	eng, db, err := store.OpenEngine(ctx, o.state, nil, curriculum.WithStrategy(st))
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
	entries, err := discoverServeTasks(s, o.tasks)
	if err != nil {
		return err
	}
	rt, err := openRuntime(ctx, o.rt, s.ErrOut, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	reapOrphans(ctx, rt, s.ErrOut)
	// A create the dead process had in flight may land in the engine after
	// the start-up reap: sweep again shortly, then now and then.
	reapCtx, stopReap := context.WithCancel(ctx)
	defer stopReap()
	go reapLoop(reapCtx, rt, s.ErrOut)
	for _, img := range serveImages(entries) {
		if err := ensureImage(ctx, rt, o.rt, img, s.ErrOut, log); err != nil {
			return err
		}
	}
	rp, rs, err := newServeResetter(rt, o, log)
	if err != nil {
		return err
	}
	eng, db, err := openServeState(ctx, o)
	if err != nil {
		return errors.Join(err, rs.Close(context.WithoutCancel(ctx)))
	}
	srv, err := server.New(ctx, rs, rp, eng, entries, server.WithToken(token), server.WithEpisodeTTL(o.ttl),
		server.WithMaxInterventionShare(o.maxShare), server.WithMaxGroup(o.maxGroup), server.WithMaxBody(o.maxBody),
		server.WithJournal(o.state), server.WithLogger(log))
	if err != nil {
		return errors.Join(err, rs.Close(context.WithoutCancel(ctx)), db.Close())
	}
	if n := srv.Lost(); n > 0 {
		fmt.Fprintf(s.ErrOut, "%d episode(s) open in a previous run were lost (GET /v1/episodes?state=lost)\n", n)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err == nil {
		fmt.Fprintf(s.ErrOut, "rbx serve: %d task(s), strategy %s, %s runtime, pool %d, state %s\n", len(entries), eng.Strategy(), rt.Name(), o.pool, o.state)
		fmt.Fprintf(s.Out, "listening on http://%s\n", ln.Addr())
		err = listen(ctx, ln, srv.Handler(), o.drain)
	} else {
		err = fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	// Drain: every sandbox removed, journal and curriculum closed.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	err = errors.Join(err, srv.Close(cctx), rs.Close(cctx), db.Close())
	fmt.Fprintln(s.ErrOut, "rbx serve: drained")
	return err
}

// discoverServeTasks loads the tasks and references under dir: the first
// trajectory (by path) of each task is its reference; broken documents
// and extra trajectories are reported and skipped.
func discoverServeTasks(s Streams, dir string) ([]server.Entry, error) {
	items, err := prefilter.Discover(dir)
	if err != nil {
		return nil, usageError("--tasks: %v", err)
	}
	seen := map[string]string{}
	var entries []server.Entry
	for _, it := range items {
		switch {
		case it.Err != nil:
			fmt.Fprintf(s.ErrOut, "warning: skipping %s: %v\n", it.Key.File, it.Err)
		case seen[it.Task.ID] != "":
			fmt.Fprintf(s.ErrOut, "warning: task %s already has reference %s; ignoring %s\n", it.Task.ID, seen[it.Task.ID], it.Traj.ID)
		default:
			seen[it.Task.ID] = it.Traj.ID
			entries = append(entries, server.Entry{Task: it.Task, Ref: it.Traj})
		}
	}
	if len(entries) == 0 {
		return nil, usageError("--tasks %s: no task with a valid reference trajectory", dir)
	}
	return entries, nil
}

// reapLoop removes dead processes' sandboxes 5 s after start-up, then
// every minute, until ctx ends.
func reapLoop(ctx context.Context, rt sandbox.Runtime, errOut io.Writer) {
	wait := 5 * time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		reapOrphans(ctx, rt, errOut)
		wait = time.Minute
	}
}

func serveImages(entries []server.Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if img := provision.Spec(e.Task).Image; !seen[img] {
			seen[img] = true
			out = append(out, img)
		}
	}
	return out
}
