package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		t.Run(args[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), args, Streams{Out: &out, ErrOut: &errOut})
			require.Equal(t, exitOK, code, errOut.String())
			for _, want := range []string{"rbx ", "revision: ", "go: go1.", "engine: ", "task policy (defaults", "DAC_OVERRIDE", "no network"} {
				assert.Contains(t, out.String(), want)
			}
			if strings.Contains(out.String(), "engine: docker ") {
				assert.Regexp(t, `isolation: runtime \S+ \(available: [^)]*runc[^)]*\); seccomp \S+; user namespace (on|off); rootless engine (on|off);`, out.String())
				assert.Regexp(t, `disk bound (storage-opt|file-size-only) \(storage driver `, out.String())
			}
		})
	}
}
