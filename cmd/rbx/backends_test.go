package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackendOrder: --runtime auto tries Docker, then containerd; the
// kubernetes backend and the unisolated local one are only chosen by name.
func TestBackendOrder(t *testing.T) {
	all := backends(slog.New(slog.DiscardHandler), io.Discard, backendOptions{})
	var names, auto []string
	for _, b := range all {
		names = append(names, b.Name)
	}
	for _, b := range autoBackends(all) {
		if !b.Unisolated {
			auto = append(auto, b.Name)
		}
	}
	assert.Equal(t, []string{"docker", "containerd", "kubernetes", "local"}, names)
	assert.Equal(t, []string{"docker", "containerd"}, auto)
}

// TestNotBuiltIn: a backend a build tag left out keeps its name and says,
// when asked for, that it is not in the binary and what builds it.
func TestNotBuiltIn(t *testing.T) {
	for _, b := range notBuiltIn("rbx_slim", "containerd", "kubernetes") {
		t.Run(b.Name, func(t *testing.T) {
			err := b.Available(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the "+b.Name+" backend is not in this binary (built with -tags rbx_slim")
			assert.Contains(t, err.Error(), "make build builds every backend")
			rt, err := b.New()
			assert.Nil(t, rt)
			require.Error(t, err)
		})
	}
}
