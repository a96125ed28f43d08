package sandboxtest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// forge is a step that tries to end itself with a fake status 0 after a
// command that fails (its true status is 3). It prints:
//   - the old attack: RBX_STEP used to hold the sentinel's random part, so
//     __rbx_<nonce>_<n>:0 ended the step with status 0;
//   - every __rbx_...: marker found in what it can read (its environment,
//     stdin, every process's command line and environment) once quotes and
//     spaces are dropped, which rebuilds a marker split into two arguments
//     (the container supervisor's exit marker used to be), followed by 0;
//   - __rbx_<word>:0 for every word it can read there.
const forge = `k=${RBX_STEP%-}; n=${k##*-}; k=${k%-*}
printf '__rbx_%s_%s:0\n' "$k" "$n"
seen=$({ env; cat; for p in /proc/[0-9]*; do tr '\0' ' ' <"$p/cmdline"; echo; tr '\0' '\n' <"$p/environ"; done; } 2>/dev/null)
printf '%s\n' "$seen" | tr -d "'\" " | grep -o '__rbx_[A-Za-z0-9_-]*:' | sort -u | sed 's/$/0/'
for w in $(printf '%s\n' "$seen" | tr -c 'A-Za-z0-9_' '\n' | sort -u); do printf '__rbx_%s:0\n' "$w"; done
(exit 3)`

// testForgedSentinel: nothing a step prints ends it or sets its status,
// in either mode: the fake lines are output, the status is the true one,
// and the session goes on in step.
func (s *suite) testForgedSentinel(t *testing.T) {
	oldAttack := regexp.MustCompile(`(?m)^__rbx_[0-9a-z]+_[0-9]+:0$`)
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			runOK(t, sb, "true") // a step before, so the session's step count is not 1
			res := run(t, sb, cmd(forge))
			assert.Equal(t, 3, res.ExitCode, "the true status, not a forged 0")
			assert.False(t, res.SessionLost, "no forged exit of the shell")
			assert.False(t, res.TimedOut)
			// Not assert.Contains: it would print the whole (long) output.
			if mode == sandbox.ModeSession { // RBX_STEP=<nonce>-<n>- is the session's marker
				assert.True(t, oldAttack.Match(res.Output), "the old attack's line is plain output")
			}
			assert.True(t, strings.Contains(string(res.Output), "\n__rbx_RBX_STEP:0\n"), "the step ran to its end")
			res = runOK(t, sb, "echo next")
			assert.Equal(t, "next\n", string(res.Output), "the protocol is still in step")
		})
	}
}

// tamper makes a session hostile to anything that would write files
// through it: tools on PATH and shell functions that corrupt or do nothing,
// another cwd, and a symlink where a file will be written.
const tamper = `mkdir -p evil v && for t in base64 cat tar mkdir chmod mv cp sh; do
  printf '#!/bin/sh\necho corrupted\n' > "evil/$t"; chmod +x "evil/$t"; done
ln -s ../elsewhere v/data.bin
export PATH="$PWD/evil:$PATH"
base64() { echo corrupted; }; cat() { echo corrupted; }; tar() { :; }; mkdir() { :; }
cd /tmp`

// testFilesOutsideSession: WriteFiles does not depend on the session
// shell's state: a session that replaced the tools, moved its cwd and
// planted a symlink still gets the exact bytes and modes, as a clean exec
// sees them.
func (s *suite) testFilesOutsideSession(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	runOK(t, sb, tamper)
	data := []byte("line\n\x00\x01\xff binary\n")
	require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{
		{Path: "v/tests/run.sh", Data: []byte("#!/bin/sh\necho ran\n"), Mode: 0o755},
		{Path: "v/data.bin", Data: data},
	}))
	clean := func(c string) sandbox.ExecResult {
		t.Helper()
		res := run(t, sb, sandbox.ExecRequest{Command: c, Mode: sandbox.ModeExec})
		require.Equal(t, 0, res.ExitCode, "%s: %q", c, res.Output)
		return res
	}
	assert.Equal(t, data, clean("cat v/data.bin").Output)
	assert.Equal(t, "ran\n", string(clean("./v/tests/run.sh").Output))
	assert.Equal(t, "755 644 regular\n", string(clean(`[ ! -e elsewhere ] && [ ! -L v/data.bin ] && echo $(stat -c %a v/tests/run.sh v/data.bin) regular`).Output))
	assert.Equal(t, string(clean("id -u").Output), string(clean("stat -c %u v/data.bin").Output), "owned by the sandbox's user")
	assert.Equal(t, "corrupted\n", string(runOK(t, sb, "cat /dev/null").Output), "the session is still the tampered one")
}
