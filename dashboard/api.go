package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// apiClient calls the server's HTTP API in-process: the dashboard shows
// exactly what the API answers, through the same token check.
type apiClient struct {
	h     http.Handler
	token string
}

func newAPI(h http.Handler, token string) *apiClient { return &apiClient{h: h, token: token} }

// raw answers GET path with the response body, or an *APIError.
func (a *apiClient) raw(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, http.NoBody)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	req.RequestURI = path
	req.RemoteAddr = "dashboard"
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	a.h.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		var doc struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		ae := &APIError{Path: path, Status: rec.status, Code: http.StatusText(rec.status), Message: rec.body.String()}
		if json.Unmarshal(rec.body.Bytes(), &doc) == nil && doc.Error.Code != "" {
			ae.Code, ae.Message = doc.Error.Code, doc.Error.Message
		}
		return nil, ae
	}
	return rec.body.Bytes(), nil
}

// get answers GET path decoded into out.
func (a *apiClient) get(ctx context.Context, path string, out any) error {
	b, err := a.raw(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("GET %s: decode: %w", path, err)
	}
	return nil
}

// recorder is the in-process response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }

// esc escapes one path segment of an API route.
func esc(s string) string { return url.PathEscape(s) }
