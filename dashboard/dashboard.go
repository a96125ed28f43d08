package dashboard

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Prefix is where the dashboard is mounted.
const Prefix = "/ui"

type config struct {
	token string
	every time.Duration
	log   *slog.Logger
}

// Option configures the dashboard.
type Option func(*config) error

// WithToken requires the API's bearer token (default: none, as the API
// without --token-file). Browsers log in once at /ui/login and carry a
// cookie derived from it; scripts may send "Authorization: Bearer TOKEN".
// The dashboard also sends it on its in-process API calls.
func WithToken(token string) Option {
	return func(c *config) error { c.token = token; return nil }
}

// WithRefresh sets how often pages poll for fresh data (default 2s).
func WithRefresh(d time.Duration) Option {
	return func(c *config) error {
		if d < 100*time.Millisecond {
			return fmt.Errorf("dashboard refresh %v: expected ≥ 100ms", d)
		}
		c.every = d
		return nil
	}
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.log = l; return nil }
}

// Dashboard serves /ui. Create it with New.
type Dashboard struct {
	cfg   config
	api   *apiClient
	rates *sampler
	mux   *http.ServeMux
}

// New returns the dashboard of the server whose HTTP API is api (the
// handler of server.Server, token checks included).
func New(api http.Handler, opts ...Option) (*Dashboard, error) {
	cfg := config{every: 2 * time.Second, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	d := &Dashboard{cfg: cfg, api: newAPI(api, cfg.token), rates: newSampler(time.Minute), mux: http.NewServeMux()}
	d.routes()
	return d, nil
}

// Mount returns a handler that serves the dashboard under /ui and
// everything else from api: what `rbx serve` listens with.
func Mount(api http.Handler, opts ...Option) (http.Handler, error) {
	d, err := New(api, opts...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Prefix+"/", d)
	mux.Handle(Prefix, http.RedirectHandler(Prefix+"/", http.StatusMovedPermanently))
	mux.Handle("/", api)
	return mux, nil
}

func (d *Dashboard) routes() {
	page := func(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
		return d.guard(d.serve(h), true)
	}
	data := func(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
		return d.guard(d.serve(h), false)
	}
	d.mux.Handle("GET "+Prefix+"/{$}", page(d.overviewPage))
	d.mux.Handle("GET "+Prefix+"/live", data(d.overviewLive))
	d.mux.Handle("GET "+Prefix+"/tasks/{task}", page(d.taskPage))
	d.mux.Handle("GET "+Prefix+"/tasks/{task}/live", data(d.taskLive))
	d.mux.Handle("GET "+Prefix+"/tasks/{task}/charts/{chart}", data(d.chartFile))
	d.mux.Handle("GET "+Prefix+"/episodes", page(d.episodesPage))
	d.mux.Handle("GET "+Prefix+"/episodes/{id}", page(d.episodePage))
	d.mux.Handle("GET "+Prefix+"/episodes/{id}/live", data(d.episodeLive))
	d.mux.Handle("GET "+Prefix+"/episodes/{id}/export/{format}", data(d.export))
	d.mux.Handle("GET "+Prefix+"/static/{file}", http.HandlerFunc(serveAsset))
	d.mux.Handle("GET "+Prefix+"/login", http.HandlerFunc(d.loginPage))
	d.mux.Handle("POST "+Prefix+"/login", http.HandlerFunc(d.login))
	d.mux.Handle("POST "+Prefix+"/logout", http.HandlerFunc(d.logout))
	d.mux.Handle(Prefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.fail(w, r, errNotFound(fmt.Sprintf("no page %s", r.URL.Path)))
	}))
}

// ServeHTTP serves the dashboard's routes with its security headers.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Everything is served from here: no inline script or style, no
	// framing, no third-party origin.
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	d.mux.ServeHTTP(w, r)
}

// serve adapts a handler that may fail: the error becomes a page (or a
// JSON error for data routes) with its status.
func (d *Dashboard) serve(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			d.fail(w, r, err)
		}
	})
}
