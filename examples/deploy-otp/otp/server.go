package otp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrConfig is returned by NewServer for an unusable secret, period or option.
var ErrConfig = errors.New("invalid otp server configuration")

// Response is the JSON body of GET /otp.
type Response struct {
	// Code is the current one-time password.
	Code string `json:"code"`
	// ExpiresIn is how many whole seconds the code stays valid.
	ExpiresIn int64 `json:"expires_in"`
}

// Server issues codes over HTTP: GET /otp answers with a Response.
type Server struct {
	secret string
	period time.Duration
	now    func() time.Time
	mux    *http.ServeMux
}

var _ http.Handler = (*Server)(nil)

type config struct {
	now func() time.Time
}

// Option configures a Server.
type Option func(*config) error

// WithClock sets the clock the server reads (default time.Now); tests inject
// a fixed or stepping clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrConfig)
		}
		c.now = now
		return nil
	}
}

// NewServer returns the OTP service for secret. period must be a whole
// number of seconds, at least one, because the deploy script compares codes
// computed from `date +%s`.
func NewServer(secret string, period time.Duration, opts ...Option) (*Server, error) {
	if secret == "" {
		return nil, fmt.Errorf("%w: empty secret", ErrConfig)
	}
	if period < time.Second || period%time.Second != 0 {
		return nil, fmt.Errorf("%w: period %s: expected a whole number of seconds, at least 1s", ErrConfig, period)
	}
	c := config{now: time.Now}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	s := &Server{secret: secret, period: period, now: c.now, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /otp", s.handleOTP)
	return s, nil
}

// ServeHTTP routes GET /otp; other paths get 404 and other methods 405.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Issue is the code and its remaining lifetime at the server's current time.
func (s *Server) Issue() Response {
	now := s.now()
	left := Expiry(now, s.period).Sub(now)
	return Response{Code: Code(s.secret, now, s.period), ExpiresIn: int64(left / time.Second)}
}

func (s *Server) handleOTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	// Encoding a two-field struct cannot fail; a write error means the client left.
	_ = json.NewEncoder(w).Encode(s.Issue())
}
