package replayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// maxBody bounds how much of a response is read.
const maxBody = 4 << 20

// http runs an http step from the orchestrator (not the sandbox), only
// towards the task's declared services, redirects included. The status
// code stands in for the exit code.
func (run *Run) http(ctx context.Context, s trajectory.Step) (outcome, error) {
	raw, err := run.expand("url", s.URL)
	if err != nil {
		return outcome{}, err
	}
	u, err := run.allow.check(raw)
	if err != nil {
		return outcome{}, fmt.Errorf("%w: %v", errAction, err)
	}
	var body io.Reader
	if s.Body != nil {
		b, err := run.expand("body", *s.Body)
		if err != nil {
			return outcome{}, err
		}
		body = strings.NewReader(b)
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout.D())
		defer cancel()
	}
	method := strings.ToUpper(s.Method)
	ctx = withPolicy(ctx, &requestPolicy{allow: run.allow, retry: retried(s)})
	req, err := retryablehttp.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return outcome{}, fmt.Errorf("%w: %s %s: %v", errAction, method, raw, err)
	}
	for k, v := range s.Headers {
		if v, err = run.expand("headers."+k, v); err != nil {
			return outcome{}, err
		}
		req.Header.Set(k, v)
	}
	resp, err := run.r.http.Do(req)
	if re, ok := errors.AsType[*redirectError](err); ok {
		return outcome{}, fmt.Errorf("%w: %s %s: %v", errAction, method, raw, re)
	}
	if err != nil {
		return outcome{}, err // retryablehttp's error names the method, URL and attempts
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return outcome{}, fmt.Errorf("%s %s: read body: %w", method, raw, err)
	}
	truncated := len(data) > maxBody
	if truncated {
		data = data[:maxBody]
	}
	return outcome{exitCode: resp.StatusCode, output: string(data), hasOutput: true, body: data,
		truncated: truncated, bytes: int64(len(data))}, nil
}

// idempotent methods may be sent twice with the effect of once (RFC 9110
// §9.2.2), so they are retried by default.
var idempotent = []string{"GET", "HEAD", "OPTIONS", "PUT", "DELETE"}

// retried reports whether http step s is retried on errors and 5xx/429
// answers: as its "retry" says, else only for idempotent methods. A
// connection that could not be opened is retried in every case (nothing
// was sent).
func retried(s trajectory.Step) bool {
	if s.Retry != nil {
		return *s.Retry
	}
	return slices.Contains(idempotent, strings.ToUpper(s.Method))
}

// capture binds variables to fields of the JSON response body.
func (run *Run) capture(s trajectory.Step, out outcome) error {
	if len(s.Capture) == 0 {
		return nil
	}
	var doc any
	if err := json.Unmarshal(out.body, &doc); err != nil {
		return fmt.Errorf("capture: response is not JSON: %v", err)
	}
	for name, path := range s.Capture {
		v, err := Lookup(doc, path)
		if err != nil {
			return fmt.Errorf("capture %s: %w", name, err)
		}
		run.vars[name] = v
	}
	return nil
}

// Lookup follows a dotted path ("data.items.0.code") through decoded JSON and
// returns the value as a string (JSON text for objects and arrays).
func Lookup(doc any, path string) (string, error) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return "", fmt.Errorf("field %q of %q not in response", part, path)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return "", fmt.Errorf("index %q of %q: expected 0..%d", part, path, len(c)-1)
			}
			cur = c[i]
		default:
			return "", fmt.Errorf("%q of %q: not an object or array", part, path)
		}
	}
	switch v := cur.(type) {
	case string:
		return v, nil
	case nil:
		return "", fmt.Errorf("%q is null", path)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	default:
		b, _ := json.Marshal(v)
		return string(b), nil
	}
}
