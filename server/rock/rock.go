// Package rock answers the subset of ROCK's sandbox HTTP API that ROLL's
// agentic pipelines use (ROCK is Alibaba's sandbox manager, ROLL its RL
// framework; see docs/rock.md), under /apis/envs/sandbox/v1 of `rbx
// serve`, so those pipelines run on rbx by changing their base_url. An
// image "rbx://TASK@auto" starts a sandbox already replayed to the
// checkpoint the curriculum chose. Replies keep ROCK's envelope and its
// traps: always HTTP 200, errors as status "Failed", no null strings.
package rock

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Prefix is where the API is mounted.
const Prefix = "/apis/envs/sandbox/v1"

// Handler serves the API. Create it with New, mount it at Prefix+"/" and
// Close it to remove its sandboxes.
type Handler struct {
	be   Backend
	cfg  config
	mux  *http.ServeMux
	met  *metrics
	host string

	mu     sync.Mutex
	boxes  map[string]*box
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup
	// ctx bounds the starts in flight; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
}

type config struct {
	ttl, maxTTL    time.Duration
	sessionIdle    time.Duration
	commandTimeout time.Duration
	outputCap      int
	maxUpload      int64
	keepStopped    time.Duration
	hostIP         string
	log            *slog.Logger
	reg            prometheus.Registerer
}

// Option configures a Handler.
type Option func(*config)

// WithTTL sets the idle timeout of a sandbox whose start_async gave no
// auto_clear_time_minutes (default 30m), and the longest one it may ask
// for (default 24h).
func WithTTL(def, max time.Duration) Option {
	return func(c *config) { c.ttl, c.maxTTL = def, max }
}

// WithSessionIdle sets how long a session may stay unused before it is
// closed (default 30m): the SDK never closes the sessions arun opens.
func WithSessionIdle(d time.Duration) Option { return func(c *config) { c.sessionIdle = d } }

// WithCommandTimeout sets the timeout of a run_in_session that gave none
// (default 1h; ROCK waits forever).
func WithCommandTimeout(d time.Duration) Option { return func(c *config) { c.commandTimeout = d } }

// WithOutputCap bounds the output kept of one command (default 16 MiB).
func WithOutputCap(n int) Option { return func(c *config) { c.outputCap = n } }

// WithMaxUpload bounds an upload's file (default 512 MiB).
func WithMaxUpload(n int64) Option { return func(c *config) { c.maxUpload = n } }

// WithHostIP sets the host_ip reported (default: the address the request
// came in on). ROLL treats an empty host_ip as a failed start.
func WithHostIP(ip string) Option { return func(c *config) { c.hostIP = ip } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithRegisterer registers the API's metrics (default: none).
func WithRegisterer(r prometheus.Registerer) Option { return func(c *config) { c.reg = r } }

// New returns a Handler starting sandboxes on be.
func New(be Backend, opts ...Option) *Handler {
	cfg := config{ttl: 30 * time.Minute, maxTTL: 24 * time.Hour, sessionIdle: 30 * time.Minute,
		commandTimeout: time.Hour, outputCap: 16 << 20, maxUpload: 512 << 20, keepStopped: time.Hour,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		o(&cfg)
	}
	host, _ := os.Hostname()
	h := &Handler{be: be, cfg: cfg, host: host, boxes: map[string]*box{}, stop: make(chan struct{}), met: newMetrics(cfg.reg)}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.routes()
	h.wg.Add(1)
	go h.janitor()
	return h
}

// MaxUpload is the largest request body the API accepts (an upload's).
func (h *Handler) MaxUpload() int64 { return h.cfg.maxUpload + 1<<20 }

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close refuses new sandboxes and removes every running one.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	boxes := make([]*box, 0, len(h.boxes))
	for _, b := range h.boxes {
		boxes = append(boxes, b)
	}
	h.mu.Unlock()
	close(h.stop)
	h.cancel()
	h.wg.Wait()
	for _, b := range boxes {
		h.end(ctx, b, CloseDiscard, "server shutdown")
	}
	return nil
}
