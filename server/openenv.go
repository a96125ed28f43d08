package server

import (
	"context"
	"net/url"
	"strings"

	"github.com/rbx-sandbox/rbx/server/openenv"
)

// openenvConfig turns OpenEnv's protocol on (WithOpenEnv).
type openenvConfig struct {
	opts []openenv.Option
}

// WithOpenEnv serves OpenEnv's environment-server protocol (package
// server/openenv, docs/openenv.md) beside the native API: /ws sessions,
// each one episode at a time through the same reset, step and evaluate
// as /v1, /health, /schema, /metadata, /mcp and the stateless routes.
// With a token (WithToken) the routes live under /TOKEN/ only: OpenEnv's
// clients send no header, but keep their base URL's path.
func WithOpenEnv(opts ...openenv.Option) Option {
	return func(c *config) error {
		c.openenv = &openenvConfig{opts: opts}
		return nil
	}
}

// mountOpenEnv creates the protocol's handler and mounts its routes.
func (s *Server) mountOpenEnv() error {
	if s.cfg.openenv == nil {
		return nil
	}
	opts := []openenv.Option{openenv.WithLogger(s.cfg.log), openenv.WithMaxSessions(s.cfg.maxOpen),
		openenv.WithMaxFrame(s.cfg.maxBody), openenv.WithContext(s.stopCtx)}
	if s.cfg.token != "" {
		if url.PathEscape(s.cfg.token) != s.cfg.token || strings.Contains(s.cfg.token, "/") {
			// Said, not fatal: the /v1 API does not need it.
			s.cfg.log.Warn("openenv: off: the token is its routes' path prefix and must be URL-safe (letters, digits, -._~; `openssl rand -hex 32` makes one)")
			return nil
		}
		opts = append(opts, openenv.WithPrefix("/"+s.cfg.token))
	}
	s.oe = openenv.New(&openenvBackend{s: s}, append(opts, s.cfg.openenv.opts...)...)
	for _, p := range s.oe.Patterns() {
		s.mux.Handle(p, s.oe)
	}
	return nil
}

// stopContext is a context that ends when the server closes (open
// OpenEnv sessions end with it).
func stopContext(stop <-chan struct{}) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	return ctx
}
