// Package client is a Go client of the rbx serve HTTP API (/v1): reset,
// step and evaluate episodes. `rbx demo` plays through it, and tests of a
// served curriculum can too.
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/server/api"
)

// Client calls one rbx server. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	http  *http.Client
}

type config struct {
	token string
	http  *http.Client
}

// Option configures a Client.
type Option func(*config) error

// WithToken sends "Authorization: Bearer token" (default: no header; a
// server off loopback requires one).
func WithToken(token string) Option {
	return func(c *config) error {
		if token == "" {
			return errors.New("token: empty")
		}
		c.token = token
		return nil
	}
}

// WithHTTPClient sends requests through hc (default: http.DefaultClient).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("http client: nil")
		}
		c.http = hc
		return nil
	}
}

// WithCAFile trusts the PEM certificates in path (the CA, or the
// self-signed certificate, of an `rbx serve --tls-cert` server) on top of
// the system's (default: the system's only). It replaces the HTTP client,
// so give it after any WithHTTPClient.
func WithCAFile(path string) Option {
	return func(c *config) error {
		pem, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("ca file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil { // no system store here: the file alone
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("ca file %s: no PEM certificate", path)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		c.http = &http.Client{Transport: tr}
		return nil
	}
}

// New returns a Client of the server at base, such as
// "http://127.0.0.1:8700".
func New(base string, opts ...Option) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("rbx client: base %q: want an http(s) URL", base)
	}
	cfg := config{http: http.DefaultClient}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("rbx client: %w", err)
		}
	}
	return &Client{base: strings.TrimRight(base, "/"), token: cfg.token, http: cfg.http}, nil
}

// Reset starts episodes (see api.ResetRequest).
func (c *Client) Reset(ctx context.Context, req api.ResetRequest) (*api.ResetResponse, error) {
	var out api.ResetResponse
	return &out, c.post(ctx, "/v1/reset", req, &out)
}

// Step runs one tool call in an episode.
func (c *Client) Step(ctx context.Context, episode string, req api.StepRequest) (*api.StepResponse, error) {
	var out api.StepResponse
	return &out, c.post(ctx, "/v1/episodes/"+url.PathEscape(episode)+"/step", req, &out)
}

// Evaluate runs the task's verifier on an episode and closes it.
func (c *Client) Evaluate(ctx context.Context, episode string) (*api.EvaluateResponse, error) {
	var out api.EvaluateResponse
	return &out, c.post(ctx, "/v1/episodes/"+url.PathEscape(episode)+"/evaluate", struct{}{}, &out)
}

// Fork starts an episode replaying the first t steps of another (see
// api.ForkRequest).
func (c *Client) Fork(ctx context.Context, episode string, req api.ForkRequest) (*api.ForkResponse, error) {
	var out api.ForkResponse
	return &out, c.post(ctx, "/v1/episodes/"+url.PathEscape(episode)+"/fork", req, &out)
}

// Evidence scores the rubric (and the verifier when asked) at an
// episode's state in a scratch sandbox. A call within the server's
// --evidence-interval fails with a *api.APIError of code
// api.CodeRateLimited whose RetryAfter says when to retry.
func (c *Client) Evidence(ctx context.Context, episode string, req api.EvidenceRequest) (*api.EvidenceResponse, error) {
	var out api.EvidenceResponse
	return &out, c.post(ctx, "/v1/episodes/"+url.PathEscape(episode)+"/evidence", req, &out)
}

// Close releases an episode without an outcome (idempotent while the
// server remembers it).
func (c *Client) Close(ctx context.Context, episode string) error {
	var out api.EpisodeSummary
	return c.post(ctx, "/v1/episodes/"+url.PathEscape(episode)+"/close", struct{}{}, &out)
}

// post sends body as JSON and decodes the answer into out. An error
// response comes back as a *api.APIError with its status, code and
// message, for callers to branch on with errors.As.
func (c *Client) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("POST %s: encode: %w", path, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("POST %s: read: %w", path, err)
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %w", path, apiError(resp, data))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("POST %s: decode: %w", path, err)
	}
	return nil
}

// apiError decodes an error response; a body that is not one (a proxy's
// page) becomes the message.
func apiError(resp *http.Response, data []byte) *api.APIError {
	var doc struct {
		Error map[string]any `json:"error"`
	}
	e := &api.APIError{Status: resp.StatusCode, Code: "http_" + fmt.Sprint(resp.StatusCode), Message: strings.TrimSpace(string(data))}
	if json.Unmarshal(data, &doc) == nil {
		code, _ := doc.Error["code"].(string)
		msg, _ := doc.Error["message"].(string)
		if code != "" {
			e.Code, e.Message = code, msg
			// The details (attribution, reason, retryable, ...) as sent.
			for k, v := range doc.Error {
				if k != "code" && k != "message" {
					e.With(k, v)
				}
			}
		}
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = s
	}
	return e
}
