package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBackendOrder: --runtime auto tries Docker, then containerd; the
// unisolated local backend is only chosen by name.
func TestBackendOrder(t *testing.T) {
	var names, isolating []string
	for _, b := range backends(slog.New(slog.DiscardHandler), io.Discard, backendOptions{}) {
		names = append(names, b.Name)
		if !b.Unisolated {
			isolating = append(isolating, b.Name)
		}
	}
	assert.Equal(t, []string{"docker", "containerd", "local"}, names)
	assert.Equal(t, []string{"docker", "containerd"}, isolating)
}
