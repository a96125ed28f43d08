package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/server/rock"
)

// rockConfig turns the ROCK-compatible API on (WithROCK).
type rockConfig struct {
	rt      pool.Creator
	network string
	opts    []rock.Option
}

// WithROCK serves the ROCK-compatible sandbox API under
// /apis/envs/sandbox/v1 (package server/rock, docs/rock.md) beside the
// native one, with the same token, limits and metrics: an image
// "rbx://TASK@auto" starts an episode of a task through the reset path,
// any other image a plain sandbox created on rt (nil: rbx:// images
// only) with network (default none: no silent widening of isolation).
func WithROCK(rt pool.Creator, network string, opts ...rock.Option) Option {
	return func(c *config) error {
		c.rock = &rockConfig{rt: rt, network: network, opts: opts}
		return nil
	}
}

// mountROCK creates the ROCK API and mounts it on the server's mux.
func (s *Server) mountROCK() {
	if s.cfg.rock == nil {
		return
	}
	be := &rockBackend{s: s, rt: s.cfg.rock.rt, network: s.cfg.rock.network}
	opts := append([]rock.Option{rock.WithLogger(s.cfg.log), rock.WithRegisterer(s.met.reg)}, s.cfg.rock.opts...)
	s.rock = rock.New(be, opts...)
	s.mux.Handle(rock.Prefix+"/", s.rock)
}

// closeROCK removes the ROCK API's sandboxes (its episodes close).
func (s *Server) closeROCK(ctx context.Context) error {
	if s.rock == nil {
		return nil
	}
	return s.rock.Close(ctx)
}

// isROCK reports whether r is for the ROCK API, which answers every
// failure as HTTP 200 with status Failed.
func (s *Server) isROCK(r *http.Request) bool {
	return s.rock != nil && strings.HasPrefix(r.URL.Path, rock.Prefix+"/")
}

// rockAuthorized accepts the bearer token in Authorization or in ROCK's
// XRL-Authorization header (where the SDK sends it).
func rockAuthorized(r *http.Request, token string) bool {
	if validToken(r.Header.Get("Authorization"), token) {
		return true
	}
	xrl := strings.TrimSpace(r.Header.Get("XRL-Authorization"))
	if len(xrl) > 7 && strings.EqualFold(xrl[:7], "bearer ") {
		xrl = strings.TrimSpace(xrl[7:])
	}
	return xrl != "" && constantTimeEqual(xrl, token)
}

// bodyLimit is the largest body r may send: the ROCK API's uploads may be
// larger than the native API's requests.
func (s *Server) bodyLimit(r *http.Request) int64 {
	if s.isROCK(r) && strings.HasSuffix(r.URL.Path, "/upload") {
		return max(s.cfg.maxBody, s.rock.MaxUpload())
	}
	return s.cfg.maxBody
}
