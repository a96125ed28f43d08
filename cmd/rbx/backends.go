package main

import (
	"io"
	"log/slog"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// backends lists the sandbox backends in the order `--runtime auto` tries
// them (auto skips the unisolated local one). This is the one place cmd names a backend package: everything else
// goes through sandbox.Runtime and its optional interfaces (ImageStore...).
// Image build messages go to progress.
func backends(log *slog.Logger, progress io.Writer) []sandbox.Backend {
	return []sandbox.Backend{
		{
			Name:      "docker",
			Available: docker.Available,
			New: func() (sandbox.Runtime, error) {
				return docker.New(docker.WithLogger(log), docker.WithProgress(progress))
			},
		},
		{
			Name:       "local",
			Unisolated: true, // only by name: --runtime local
			Available:  local.Available,
			New:        func() (sandbox.Runtime, error) { return local.New() },
		},
	}
}

// engineBackends are the backends that keep images (sandbox.ImageStore), in
// the order image commands try them.
func engineBackends(log *slog.Logger, progress io.Writer) []sandbox.Backend {
	return backends(log, progress)[:1]
}
