package replayer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowListCheck(t *testing.T) {
	a := newAllowList(map[string]string{
		"svc":  "http://127.0.0.1:8181/svc",
		"root": "https://API.example:8443/",
		"dflt": "http://plain.example",
	})
	tests := []struct {
		url  string
		want string // the URL sent; "" when refused
		why  string // part of the refusal
	}{
		{"http://127.0.0.1:8181/svc", "http://127.0.0.1:8181/svc", ""},
		{"http://127.0.0.1:8181/svc/", "http://127.0.0.1:8181/svc/", ""},
		{"http://127.0.0.1:8181/svc/a?x=../../evil#frag", "http://127.0.0.1:8181/svc/a?x=../../evil", ""},
		{"http://127.0.0.1:8181/svc/a/../b", "http://127.0.0.1:8181/svc/b", ""},
		{"http://127.0.0.1:8181/svc//a", "http://127.0.0.1:8181/svc/a", ""},
		{"HTTP://127.0.0.1:8181/svc/a", "http://127.0.0.1:8181/svc/a", ""},
		{"http://127.0.0.1:8181/svc-evil", "", "not under any of the task's services"},
		{"http://127.0.0.1:8181/svcx/a", "", "not under any"},
		{"http://127.0.0.1:8181/", "", "not under any"},
		{"http://127.0.0.1:8181/svc/..", "", "not under any"},
		{"http://127.0.0.1:8181/svc/../evil", "", "not under any"},
		{"http://127.0.0.1:8181/svc/./../evil/", "", "not under any"},
		{"http://127.0.0.1:8181/svc/%2e%2e/evil", "", "encoded"},
		{"http://127.0.0.1:8181/svc/%2E%2E/evil", "", "encoded"},
		{"http://127.0.0.1:8181/svc%2f..%2fevil", "", "encoded"},
		{"http://127.0.0.1:8181/svc/%252e%252e/evil", "", "encoded"},
		{"http://127.0.0.1:8181/svc/..%5cevil", "", "encoded"},
		{`http://127.0.0.1:8181/svc/..\evil`, "", "encoded"},
		{"http://127.0.0.1:8181//svc", "http://127.0.0.1:8181/svc", ""},
		{"//127.0.0.1:8181/svc", "", "absolute http(s) URL"},
		{"/svc/a", "", "absolute http(s) URL"},
		{"ftp://127.0.0.1:8181/svc", "", "absolute http(s) URL"},
		{"https://127.0.0.1:8181/svc", "", "not under any"},
		{"http://127.0.0.1:8182/svc", "", "not under any"},
		{"http://127.0.0.1/svc", "", "not under any"},
		{"http://localhost:8181/svc", "", "not under any"},
		{"http://127.0.0.1:8181@evil.example/svc", "", "credentials"},
		{"http://user:pw@127.0.0.1:8181/svc", "", "credentials"},
		{"https://api.example:8443/anything", "https://api.example:8443/anything", ""},
		{"https://api.example:8443", "https://api.example:8443/", ""},
		{"https://api.example/anything", "", "not under any"},
		{"http://plain.example:80/x", "http://plain.example:80/x", ""},
		{"http://plain.example:8080/x", "", "not under any"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			u, err := a.check(tc.url)
			if tc.want == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.why)
				assert.NotContains(t, err.Error(), "pw", "credentials are redacted")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, u.String())
		})
	}
}

func TestAllowListIgnoresBadBases(t *testing.T) {
	a := newAllowList(map[string]string{"bad": "127.0.0.1:8181", "rel": "/svc"})
	assert.Empty(t, a)
	_, err := a.check("http://127.0.0.1:8181/svc")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "none declared")
}
