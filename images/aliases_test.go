package images

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultAliasesResolve(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"ghcr.io/laude-institute/t-bench/deveval:latest", "rbx/deveval:bookworm"},
		{"ghcr.io/laude-institute/t-bench/deveval", "rbx/deveval:bookworm"},
		{"ghcr.io/laude-institute/t-bench/python-3-13:20250620", "rbx/debian:bookworm"},
		{"ghcr.io/laude-institute/t-bench/ubuntu-24-04:latest", "rbx/debian:bookworm"},
		{"buildpack-deps:jammy", "rbx/buildpack-deps:bookworm"},
		{"docker.io/library/buildpack-deps:bookworm-scm", "rbx/buildpack-deps:bookworm"},
		{"golang:1.21", "rbx/buildpack-deps:bookworm"},
		{"rust:1.75-slim", "rbx/buildpack-deps:bookworm"},
		{"node:20@sha256:abc", "rbx/buildpack-deps:bookworm"},
		{"python:3.11-slim", "rbx/debian:bookworm"},
		{"ubuntu:22.04", "rbx/debian:bookworm"},
		{"busybox:1.36", "rbx/busybox:latest"},
		{"alpine:3.19", ""},
	}
	as := DefaultAliases()
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, ok := as.Resolve(tt.ref)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
			if ok {
				_, known := Lookup(got)
				assert.True(t, known, "every alias names a recipe image")
			}
		})
	}
}

func TestLoadAliasesUserFirst(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "aliases.yaml")
	require.NoError(t, os.WriteFile(p, []byte(`aliases:
  - {match: "buildpack-deps:jammy", image: "my/jammy:1"}
  - {match: "alpine*", image: "my/alpine:1"}
`), 0o644))
	as, err := LoadAliases(p)
	require.NoError(t, err)
	got, _ := as.Resolve("buildpack-deps:jammy")
	assert.Equal(t, "my/jammy:1", got, "user entries win")
	got, _ = as.Resolve("alpine:3.19")
	assert.Equal(t, "my/alpine:1", got)
	got, _ = as.Resolve("python:3.12")
	assert.Equal(t, "rbx/debian:bookworm", got, "the built-in table follows")

	require.NoError(t, os.WriteFile(p, []byte("aliases:\n  - {match: x}\n"), 0o644))
	_, err = LoadAliases(p)
	assert.ErrorContains(t, err, "aliases[0]: match and image are required")
	_, err = LoadAliases(filepath.Join(dir, "missing.yaml"))
	assert.Error(t, err)
}

func TestProvidedIncludesBase(t *testing.T) {
	p := Provided("rbx/deveval:bookworm")
	assert.Equal(t, "1.21", p["go"], "from rbx/buildpack-deps")
	assert.Nil(t, Provided("my/own:1"))
	assert.Empty(t, Provided("rbx/debian:bookworm"))
}
