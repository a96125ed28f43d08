package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
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
