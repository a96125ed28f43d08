package replayer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// maxRedirects bounds the redirect hops of one request (net/http's own
// default).
const maxRedirects = 10

func defaultHTTPClient(log *slog.Logger) *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax = 3
	c.RetryWaitMin = 100 * time.Millisecond
	c.RetryWaitMax = 2 * time.Second
	c.HTTPClient.Timeout = 30 * time.Second
	c.Logger = slogAdapter{log}
	return c
}

// policyKey keys a request's *requestPolicy in its context.
type policyKey struct{}

// requestPolicy is what the client's guards need to know of one request.
// The client is shared by every run, so it travels in the request's
// context rather than in the client.
type requestPolicy struct {
	allow allowList
	retry bool // retry on failures and 5xx, not only on connections never opened
}

func withPolicy(ctx context.Context, p *requestPolicy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

func policyOf(ctx context.Context) *requestPolicy {
	p, _ := ctx.Value(policyKey{}).(*requestPolicy)
	return p
}

// guard installs on c the checks every request of an http step must pass:
// each redirect hop is checked against the allow-list like the first URL,
// and requests that must not be repeated are not retried. c's own
// CheckRetry decides the rest. A request without a policy in its context
// follows no redirect and is not retried.
func guard(c *retryablehttp.Client) {
	next := c.CheckRetry
	if next == nil {
		next = retryablehttp.DefaultRetryPolicy
	}
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if _, ok := errors.AsType[*redirectError](err); ok {
			return false, err
		}
		if p := policyOf(ctx); p == nil || (!p.retry && !neverSent(err)) {
			return false, nil
		}
		return next(ctx, resp, err)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	c.HTTPClient.CheckRedirect = checkRedirect
}

// neverSent reports whether err is a failure to open the connection, so
// the request never reached the service and may be sent again whatever
// its method.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// checkRedirect is http.Client.CheckRedirect for http steps.
func checkRedirect(req *http.Request, via []*http.Request) error {
	p := policyOf(req.Context())
	switch {
	case p == nil:
		return &redirectError{to: req.URL.Redacted(), err: errors.New("no allow-list for this request")}
	case len(via) > maxRedirects:
		return &redirectError{to: req.URL.Redacted(), err: fmt.Errorf("more than %d redirects", maxRedirects)}
	}
	u, err := p.allow.check(req.URL.String())
	if err != nil {
		return &redirectError{to: req.URL.Redacted(), err: err}
	}
	req.URL = u // send the cleaned URL that was checked
	return nil
}

// redirectError is a redirect the step may not follow.
type redirectError struct {
	to  string
	err error
}

func (e *redirectError) Error() string { return fmt.Sprintf("redirect to %s refused: %v", e.to, e.err) }

func (e *redirectError) Unwrap() error { return e.err }

// slogAdapter lets retryablehttp log its retries through slog.
type slogAdapter struct{ l *slog.Logger }

// Error is a failed attempt; the step reports the final failure itself.
func (a slogAdapter) Error(msg string, kv ...any) { a.l.Debug(msg, kv...) }
func (a slogAdapter) Info(msg string, kv ...any)  { a.l.Debug(msg, kv...) }
func (a slogAdapter) Debug(msg string, kv ...any) { a.l.Debug(msg, kv...) }
func (a slogAdapter) Warn(msg string, kv ...any)  { a.l.Warn(msg, kv...) }
