package openenv

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Handler serves the protocol's routes under its prefix.
type Handler struct {
	be      Backend
	log     *slog.Logger
	prefix  string
	max     int
	maxBody int64
	meta    Metadata
	active  atomic.Int64
	up      websocket.Upgrader
	mux     *http.ServeMux
	base    context.Context
	paths   []string // the routes' paths, prefix included
}

// Metadata is GET /metadata's answer.
type Metadata struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     string `json:"version"`
}

// Option configures a Handler.
type Option func(*Handler)

// WithLogger sets where the handler logs (default slog's default).
func WithLogger(l *slog.Logger) Option { return func(h *Handler) { h.log = l } }

// WithPrefix serves every route under prefix ("/SECRET": OpenEnv's
// clients keep a path prefix of their base_url, and no header, so a
// secret prefix is how they authenticate). Default: the root.
func WithPrefix(prefix string) Option {
	return func(h *Handler) { h.prefix = strings.TrimRight(prefix, "/") }
}

// WithMaxSessions bounds the open /ws sessions: one more is refused with
// CAPACITY_REACHED right after the accept (default 256).
func WithMaxSessions(n int) Option { return func(h *Handler) { h.max = n } }

// WithMaxFrame bounds one frame's (and one request body's) size (default
// 1 MiB).
func WithMaxFrame(n int64) Option { return func(h *Handler) { h.maxBody = n } }

// WithMetadata sets GET /metadata's answer.
func WithMetadata(m Metadata) Option { return func(h *Handler) { h.meta = m } }

// WithContext sets the context sessions run under: its end (the server
// draining) ends them (default: background).
func WithContext(ctx context.Context) Option { return func(h *Handler) { h.base = ctx } }

// New returns the protocol's handler over be.
func New(be Backend, opts ...Option) *Handler {
	h := &Handler{be: be, log: slog.Default(), max: 256, maxBody: 1 << 20, base: context.Background(),
		meta: Metadata{Name: "rbx", Description: "rbx: environments reset to checkpoints of verified trajectories"}}
	for _, o := range opts {
		o(h)
	}
	// OpenEnv's clients ping every 20 s and give up after 20 more: the
	// default ping handler answers from the reading goroutine.
	h.up = websocket.Upgrader{HandshakeTimeout: 10 * time.Second}
	h.mux = http.NewServeMux()
	for _, r := range []struct {
		method, path string
		f            http.HandlerFunc
	}{
		{"GET", "/ws", h.ws},
		{"GET", "/health", h.health},
		{"GET", "/openapi.json", h.openapi},
		{"GET", "/schema", h.schema},
		{"GET", "/metadata", h.metadata},
		{"POST", "/mcp", h.mcp},
		{"POST", "/reset", h.statelessReset},
		{"POST", "/step", h.statelessStep},
		{"GET", "/state", h.statelessState},
	} {
		h.mux.HandleFunc(r.method+" "+h.prefix+r.path, r.f)
		h.paths = append(h.paths, h.prefix+r.path)
	}
	return h
}

// Patterns are the routes' paths, for mounting on a mux.
func (h *Handler) Patterns() []string { return slices.Clone(h.paths) }

// Owns reports whether path is one of the handler's routes (under its
// secret prefix, which is then the request's credential). It runs on
// every request of the server it is mounted on.
func (h *Handler) Owns(path string) bool { return slices.Contains(h.paths, path) }

// Active is the number of open /ws sessions.
func (h *Handler) Active() int { return int(h.active.Load()) }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// ws upgrades a session; over the bound, the session gets one
// CAPACITY_REACHED frame and is closed.
func (h *Handler) ws(w http.ResponseWriter, r *http.Request) {
	conn, err := h.up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	defer conn.Close()
	conn.SetReadLimit(h.maxBody)
	s := &session{h: h, conn: conn}
	if n := h.active.Add(1); int(n) > h.max {
		h.active.Add(-1)
		s.fail(&Error{Code: CodeCapacity, Message: "the server's sessions are all in use",
			Data: map[string]any{"active_sessions": n - 1, "max_sessions": h.max}})
		return
	}
	defer h.active.Add(-1)
	s.serve(h.base)
}
