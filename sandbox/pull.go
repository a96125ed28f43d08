package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PullPolicy says when a runtime pulls a task's image from its registry.
type PullPolicy string

// Pull policies.
const (
	// PullNever uses local images only; a missing one is ErrImageMissing.
	PullNever PullPolicy = "never"
	// PullMissing pulls an image that is not present locally.
	PullMissing PullPolicy = "missing"
	// PullAlways pulls before every create, so that a moved tag is followed.
	PullAlways PullPolicy = "always"
)

// ParsePullPolicy returns the policy called s.
func ParsePullPolicy(s string) (PullPolicy, error) {
	switch p := PullPolicy(s); p {
	case PullNever, PullMissing, PullAlways:
		return p, nil
	}
	return "", fmt.Errorf("%w: pull policy %q: expected never, missing or always", ErrInvalidSpec, s)
}

// ErrPullFailed: an image could not be pulled; the error carries the
// registry's reason.
var ErrPullFailed = errors.New("pull failed")

// RegistryCredentials returns the user name and password (or identity
// token, with an empty user) for registry host from the user's Docker
// config ($DOCKER_CONFIG/config.json, else ~/.docker/config.json), as
// `docker login` stores them in "auths". Credential helpers (credsStore,
// credHelpers) are not consulted. No entry is not an error: empty strings.
func RegistryCredentials(host string) (user, secret string, err error) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, herr := os.UserHomeDir()
		if herr != nil {
			return "", "", nil
		}
		dir = filepath.Join(home, ".docker")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("docker config: %w", err)
	}
	var cfg struct {
		Auths map[string]struct {
			Auth          string `json:"auth"`
			IdentityToken string `json:"identitytoken"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return "", "", fmt.Errorf("docker config %s: %w", filepath.Join(dir, "config.json"), err)
	}
	for key, a := range cfg.Auths {
		if registryHost(key) != registryHost(host) {
			continue
		}
		if a.IdentityToken != "" {
			return "", a.IdentityToken, nil
		}
		dec, err := base64.StdEncoding.DecodeString(a.Auth)
		if err != nil {
			return "", "", fmt.Errorf("docker config: auth of %s: %w", key, err)
		}
		u, p, _ := strings.Cut(string(dec), ":")
		return u, p, nil
	}
	return "", "", nil
}

// registryHost normalises a Docker config key ("https://index.docker.io/v1/")
// or a reference's host to the host alone.
func registryHost(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	s, _, _ = strings.Cut(s, "/")
	if s == "index.docker.io" || s == "registry-1.docker.io" {
		return "docker.io"
	}
	return s
}

// LocalOnly reports whether ref names one of rbx's own images ("rbx/...",
// without a registry host): they are built on this machine (rbx images
// build, task builds), never pulled, whatever the pull policy, so a
// missing one is ErrImageMissing rather than a pull from Docker Hub.
func LocalOnly(ref string) bool {
	return strings.HasPrefix(ref, "rbx/") || strings.HasPrefix(ref, "docker.io/rbx/")
}

// Effective returns the policy that applies to ref: PullNever for
// LocalOnly images, p otherwise.
func (p PullPolicy) Effective(ref string) PullPolicy {
	if LocalOnly(ref) {
		return PullNever
	}
	return p
}
