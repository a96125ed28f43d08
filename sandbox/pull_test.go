package sandbox

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePullPolicy(t *testing.T) {
	for _, s := range []string{"never", "missing", "always"} {
		p, err := ParsePullPolicy(s)
		require.NoError(t, err)
		assert.Equal(t, PullPolicy(s), p)
	}
	_, err := ParsePullPolicy("sometimes")
	require.ErrorIs(t, err, ErrInvalidSpec)
}

func TestPullPolicyEffective(t *testing.T) {
	tests := []struct {
		ref  string
		want PullPolicy
	}{
		{"rbx/busybox:latest", PullNever},
		{"docker.io/rbx/debian:bookworm", PullNever},
		{"swebench/sweb.eval.x86_64.django:latest", PullAlways},
		{"127.0.0.1:5000/rbx/busybox:t", PullAlways},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, PullAlways.Effective(tc.ref), tc.ref)
	}
}

func TestRegistryCredentials(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	cfg := `{"auths": {"https://index.docker.io/v1/": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("me:pw:with:colons")) + `"},
		"reg.example:5000": {"identitytoken": "tok"}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600))
	tests := []struct{ host, user, secret string }{
		{"docker.io", "me", "pw:with:colons"},
		{"registry-1.docker.io", "me", "pw:with:colons"},
		{"reg.example:5000", "", "tok"},
		{"other.example", "", ""},
	}
	for _, tc := range tests {
		u, s, err := RegistryCredentials(tc.host)
		require.NoError(t, err, tc.host)
		assert.Equal(t, tc.user, u, tc.host)
		assert.Equal(t, tc.secret, s, tc.host)
	}
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no config: no credentials, no error
	u, s, err := RegistryCredentials("docker.io")
	require.NoError(t, err)
	assert.Empty(t, u+s)
}
