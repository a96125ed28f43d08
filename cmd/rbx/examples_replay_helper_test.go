package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
)

var reachedCheckpoint = regexp.MustCompile(`reached checkpoint k=(\d+) of (\d+)`)

// replayEveryExample runs `rbx replay --verify` on every bundled example
// extracted under dir, one subtest each, with the runtime's flags (args
// start with --runtime NAME) and the otp service override otp (NAME=URL),
// and asserts each replays to its end on a sandbox of that runtime.
func replayEveryExample(t *testing.T, dir, runtimeName, otp string, args ...string) {
	t.Helper()
	for _, name := range examples.Names() {
		t.Run("replay "+name, func(t *testing.T) {
			argv := append([]string{"replay", filepath.Join(dir, name, "trajectory.json"), "--verify", "--service", otp}, args...)
			var out, errOut bytes.Buffer
			code := Run(context.Background(), argv, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
			m := reachedCheckpoint.FindStringSubmatch(out.String())
			require.NotNil(t, m, out.String())
			assert.Equal(t, m[2], m[1], "replayed to the end")
			assert.Contains(t, errOut.String(), "on "+runtimeName+" sandbox")
		})
	}
}
