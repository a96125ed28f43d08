package dashboard

import (
	"errors"
	"net/http"
	"strings"
)

// ErrNotFound is a page whose task, episode or file does not exist.
var ErrNotFound = errors.New("not found")

// APIError is an error answer of the in-process API call behind a page.
type APIError struct {
	Path    string
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return "GET " + e.Path + ": " + e.Code + ": " + e.Message
}

// notFound wraps ErrNotFound with what was missing.
type notFound struct{ what string }

func (e notFound) Error() string { return e.what }
func (e notFound) Unwrap() error { return ErrNotFound }

func errNotFound(what string) error { return notFound{what} }

// status maps an error to the HTTP status of its page.
func status(err error) int {
	var ae *APIError
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500:
		return ae.Status
	}
	return http.StatusInternalServerError
}

// fail answers with err: a small HTML page for browsers, a JSON error
// for the live and export routes.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	if code >= 500 {
		d.cfg.log.Warn("dashboard: page failed", "path", r.URL.Path, "err", err)
	}
	if wantsJSON(r) {
		writeJSON(w, code, map[string]any{"error": map[string]string{"code": http.StatusText(code), "message": err.Error()}})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = d.render(w, "error.html", errorPage{page: page{Title: http.StatusText(code)}, Status: code, Message: err.Error()})
}

type errorPage struct {
	page
	Status  int
	Message string
}

// wantsJSON tells the data routes (live, export, charts) from pages.
func wantsJSON(r *http.Request) bool {
	p := r.URL.Path
	return strings.HasSuffix(p, "/live") || strings.Contains(p, "/export/") || strings.Contains(p, "/charts/") ||
		strings.Contains(r.Header.Get("Accept"), "application/json")
}
