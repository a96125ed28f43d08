package server

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/server/rock"
)

// handlerFunc answers a request with a JSON document or an API error.
type handlerFunc func(r *http.Request) (any, *APIError)

// register mounts every route and returns their patterns.
func (s *Server) register() []string {
	s.mux = http.NewServeMux()
	routes := []struct {
		pattern string
		h       http.Handler
	}{
		{"GET /healthz", s.api(s.healthz)},
		{"GET /metrics", s.met.handler()},
		{"GET /v1/openapi.json", http.HandlerFunc(serveOpenAPI)},
		{"GET /v1/tasks", s.api(s.listTasks)},
		{"GET /v1/tasks/{task}", s.api(s.getTask)},
		{"GET /v1/tasks/{task}/references", s.api(s.listReferences)},
		{"GET /v1/tasks/{task}/references/{version}", s.api(s.getReference)},
		{"GET /v1/curriculum", s.api(s.curriculumState)},
		{"POST /v1/reset", s.api(s.reset)},
		{"GET /v1/episodes", s.api(s.listEpisodes)},
		{"GET /v1/episodes/{id}", s.api(s.getEpisode)},
		{"POST /v1/episodes/{id}/step", s.api(s.step)},
		{"POST /v1/episodes/{id}/evaluate", s.api(s.evaluate)},
		{"POST /v1/episodes/{id}/fork", s.api(s.fork)},
		{"POST /v1/episodes/{id}/evidence", s.api(s.evidence)},
		{"POST /v1/episodes/{id}/close", s.api(s.closeEpisode)},
		{"GET /v1/episodes/{id}/trajectory", s.api(s.exportEpisode)},
	}
	var out []string
	paths := http.NewServeMux() // the same paths without methods: tells 405 from 404
	for _, rt := range routes {
		s.mux.Handle(rt.pattern, rt.h)
		out = append(out, rt.pattern)
		method, path, _ := strings.Cut(rt.pattern, " ")
		paths.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, apiErr(http.StatusMethodNotAllowed, CodeMethod, "%s %s: expected %s", r.Method, r.URL.Path, method).With("allowed", method))
		}))
	}
	paths.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, apiErr(http.StatusNotFound, CodeNotFound, "no route %s %s (see /v1/openapi.json)", r.Method, r.URL.Path))
	})
	s.mux.Handle("/", paths)
	return out
}

// api adapts a handlerFunc: JSON out, errors as {"error": {...}}.
func (s *Server) api(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, aerr := h(r)
		if aerr != nil {
			s.writeError(w, aerr)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func (s *Server) writeError(w http.ResponseWriter, e *APIError) {
	s.met.errors.WithLabelValues(e.Code).Inc()
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	if e.Status >= 500 {
		s.cfg.log.Warn("serve: request failed", "code", e.Code, "err", e.Message)
	}
	writeJSON(w, e.Status, map[string]any{"error": e})
}

// decode reads a JSON body into v; an empty body leaves v as it is.
// Unknown fields are rejected so that typos do not pass silently.
func decode(r *http.Request, v any) *APIError {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case errors.As(err, &tooLarge):
		return apiErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body over %d bytes", tooLarge.Limit)
	case err != nil:
		return apiErr(http.StatusBadRequest, CodeBadRequest, "request body: %v", err)
	}
	return nil
}

// middleware checks the bearer token and bounds the body before routing,
// and counts every request by route and status afterwards.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		start := now()
		defer func() { s.met.observeRequest(r, sw.status, since(start)) }()
		rockAPI, limit := s.isROCK(r), s.bodyLimit(r)
		switch {
		case rockAPI && s.cfg.token != "" && !rockAuthorized(r, s.cfg.token):
			rock.WriteFailed(sw, "unauthorized", "missing or wrong bearer token (XRL-Authorization: Bearer TOKEN)")
			return
		case rockAPI && r.ContentLength > limit:
			drainBody(sw, r)
			rock.WriteFailed(sw, "invalid parameter", fmt.Sprintf("request body of %d bytes over the %d-byte limit", r.ContentLength, limit))
			return
		}
		// OpenEnv's routes live under the secret path prefix, their
		// clients' only credential (mountOpenEnv).
		openenvAPI := s.oe != nil && s.oe.Owns(r.URL.Path)
		if !rockAPI && !openenvAPI && s.cfg.token != "" && r.URL.Path != "/healthz" && !validToken(r.Header.Get("Authorization"), s.cfg.token) {
			sw.Header().Set("WWW-Authenticate", `Bearer realm="rbx"`)
			s.writeError(sw, apiErr(http.StatusUnauthorized, CodeUnauthorized, "missing or wrong bearer token (Authorization: Bearer TOKEN)"))
			return
		}
		if r.ContentLength > limit {
			drainBody(sw, r)
			s.writeError(sw, apiErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body of %d bytes over the %d-byte limit", r.ContentLength, limit))
			return
		}
		r.Body = http.MaxBytesReader(sw, r.Body, limit)
		next.ServeHTTP(sw, r)
	})
}

// drainMax bounds the oversized body read before it is refused.
const drainMax = 64 << 20

// drainBody reads an oversized request body (up to drainMax) before it is
// refused, so that the client, still sending, reads the 413 instead of a
// connection reset; beyond drainMax the connection is closed after the
// answer.
func drainBody(w http.ResponseWriter, r *http.Request) {
	n, _ := io.CopyN(io.Discard, r.Body, drainMax)
	if n == drainMax {
		w.Header().Set("Connection", "close")
	}
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (flushes).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection over (OpenEnv's /ws upgrade), counted as
// 101 Switching Protocols.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.status = http.StatusSwitchingProtocols
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func validToken(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && constantTimeEqual(got, token)
}

// pathID reads and validates an episode id from the path.
func pathID(r *http.Request) (string, *APIError) {
	id := r.PathValue("id")
	if !episodeIDPattern.MatchString(id) {
		return "", apiErr(http.StatusBadRequest, CodeBadRequest, "episode id %q: expected ep_ and 20 hex digits", clip(id, 64))
	}
	return id, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
