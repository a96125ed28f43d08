package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuth: with a token, the dashboard asks for it as the API does
// (bearer header), browsers log in once for a cookie that is not the
// token, and the API behind the same listener still wants the header.
func TestAuth(t *testing.T) {
	h := newHarness(t, "s3cret")
	anon := &harness{t: t, url: h.url}

	code, _, hdr := anon.do("GET", "/ui/tasks/run-sh-path", nil)
	assert.Equal(t, http.StatusSeeOther, code, "a page sends browsers to the login form")
	assert.Equal(t, "/ui/login?next=/ui/tasks/run-sh-path", hdr.Get("Location"))
	for _, path := range []string{"/ui/live", "/ui/tasks/run-sh-path/live", "/ui/tasks/run-sh-path/charts/served.svg", "/v1/tasks", "/metrics"} {
		code, body, _ := anon.do("GET", path, nil)
		assert.Equal(t, http.StatusUnauthorized, code, path)
		assert.Contains(t, body, "unauthorized", path)
	}
	bad := &harness{t: t, url: h.url, tok: "wrong"}
	code, _, _ = bad.do("GET", "/ui/", nil)
	assert.Equal(t, http.StatusUnauthorized, code, "a wrong bearer token is refused, not redirected")

	assert.Contains(t, h.get("/ui/"), "run-sh-path", "the bearer token opens the dashboard")
	assert.Contains(t, h.get("/ui/live"), "fragments")
	code, _, _ = anon.do("GET", "/ui/static/style.css", nil)
	assert.Equal(t, http.StatusOK, code, "assets are public: the login page needs them")
	code, body, _ := anon.do("GET", "/ui/login?next=/ui/tasks/run-sh-path", nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `name="next" value="/ui/tasks/run-sh-path"`)

	resp := login(t, h.url, "nope", "/ui/tasks/run-sh-path")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Empty(t, resp.Cookies())

	resp = login(t, h.url, "s3cret\n", "/ui/tasks/run-sh-path")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/ui/tasks/run-sh-path", resp.Header.Get("Location"))
	require.Len(t, resp.Cookies(), 1)
	c := resp.Cookies()[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.NotContains(t, c.Value, "s3cret", "the cookie is not the token")

	withCookie := func(path string) int {
		req, err := http.NewRequest("GET", h.url+path, nil)
		require.NoError(t, err)
		req.AddCookie(c)
		resp, err := noRedirect.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, withCookie("/ui/tasks/run-sh-path"))
	assert.Equal(t, http.StatusOK, withCookie("/ui/tasks/run-sh-path/live"))
	assert.Equal(t, http.StatusUnauthorized, withCookie("/v1/tasks"), "the cookie opens the dashboard, not the API")

	resp, err := noRedirect.PostForm(h.url+"/ui/logout", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, resp.Cookies(), 1)
	assert.Equal(t, -1, resp.Cookies()[0].MaxAge)
}

func TestLoginRedirectStaysOnTheDashboard(t *testing.T) {
	h := newHarness(t, "s3cret")
	tests := []struct{ next, want string }{
		{"/ui/episodes", "/ui/episodes"},
		{"https://evil.example/", "/ui/"},
		{"//evil.example/ui/", "/ui/"},
		{"/v1/tasks", "/ui/"},
		{"/ui/\\evil", "/ui/"},
		{"", "/ui/"},
	}
	for _, tt := range tests {
		t.Run(tt.next, func(t *testing.T) {
			resp := login(t, h.url, "s3cret", tt.next)
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, tt.want, resp.Header.Get("Location"))
		})
	}
}

func login(t *testing.T, base, token, next string) *http.Response {
	t.Helper()
	form := url.Values{"token": {token}, "next": {next}}
	resp, err := noRedirect.Post(base+"/ui/login", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
