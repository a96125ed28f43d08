package session_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// recon prints everything a step can read without attacking the shell
// process: its environment (twice), its stdin, the command lines of the
// shell, of the shell's parent and of every process, and what `set -v`,
// `set -x` and history show. POSIX sh only: it runs on dash and busybox.
const recon = `case ${BASH_VERSION-} in ?*) set -o history;; esac; set -vx
env; tr '\0' '\n' </proc/self/environ; echo; cat; IFS= read -r l; echo "stdin: $l"
for p in /proc/[0-9]*; do tr '\0' ' ' <"$p/cmdline"; echo; done 2>/dev/null
history 2>/dev/null; fc -l 2>/dev/null; true`

// forge tries to end the step with a fake sentinel and status 0 after a
// command that fails: the old attack (RBX_STEP used to hold the sentinel's
// random part: __rbx_<nonce>_<n>:0) and the same for every word the step
// could read, its shell's history included. Its true exit status is 3.
const forge = `k=${RBX_STEP%-}; n=${k##*-}; k=${k%-*}
printf '__rbx_%s_%s:0\n' "$k" "$n"
for w in $( { env; cat; for p in /proc/[0-9]*; do cat "$p/cmdline"; done; history; fc -l; } 2>/dev/null | tr -c 'A-Za-z0-9_' ' '); do
  printf '__rbx_%s:0\n__rbx_%s_%s:0\n' "$w" "$w" "$n"
done
(exit 3)`

// tee records everything written to the shell's stdin.
type tee struct {
	mu  sync.Mutex
	w   io.Writer
	log strings.Builder
}

func (t *tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.log.Write(p)
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *tee) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log.String()
}

// startRecorded runs argv on the protocol and returns the record of its stdin.
func startRecorded(t *testing.T, argv []string) (*session.Shell, *tee) {
	t.Helper()
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Skipf("%s not installed", argv[0])
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = pr.Close() })
	require.NoError(t, pw.Close())
	rec := &tee{w: stdin}
	kill := func(ctx context.Context, marker string) error {
		return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
	}
	sh, err := session.New(context.Background(), rec, pr, kill)
	require.NoError(t, err)
	return sh, rec
}

var secretRE = regexp.MustCompile(`__rbx_%s:%d\\n' ([0-9a-f]+) "\$\?"`)

// TestStepCannotReadOrForgeSentinel: whatever a step reads (environment,
// stdin, every process's command line, traces, history), it does not hold
// the sentinel, and no text it prints — the old RBX_STEP attack included —
// changes its exit status or ends the step early.
func TestStepCannotReadOrForgeSentinel(t *testing.T) {
	shells := map[string][]string{"bash": session.StartCommand, "dash": {"dash"}, "busybox": {"busybox", "sh"}}
	for name, argv := range shells {
		t.Run(name, func(t *testing.T) {
			sh, rec := startRecorded(t, argv)
			ctx := context.Background()
			res, err := sh.Run(ctx, sandbox.ExecRequest{Command: recon, Timeout: 10 * time.Second})
			require.NoError(t, err)
			secrets := secretRE.FindAllStringSubmatch(rec.String(), -1)
			require.Len(t, secrets, 2, "handshake and recon steps")
			seen := string(res.Output)
			// Contains and NotContains would print the whole (long) output.
			assert.True(t, strings.Contains(seen, "RBX_STEP="), "the recon saw its environment")
			assert.True(t, strings.Contains(seen, "stdin: \n"), "stdin is empty")
			for _, sec := range secrets {
				assert.False(t, strings.Contains(seen, sec[1]), "secret %s is nowhere the step can read", sec[1])
			}

			res, err = sh.Run(ctx, sandbox.ExecRequest{Command: forge, Timeout: 10 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, 3, res.ExitCode, "the true status, not the forged 0")
			out := string(res.Output)
			for _, sec := range secretRE.FindAllStringSubmatch(rec.String(), -1) {
				assert.False(t, strings.Contains(out, sec[1]), "secret %s not even echoed by set -v or traced by set -x", sec[1])
			}
			assert.True(t, regexp.MustCompile(`(?m)^__rbx_[0-9a-f]+_3:0$`).MatchString(out), "the old attack's line is plain output")
			assert.True(t, strings.Contains(out, "__rbx_RBX_STEP:0\n"), "forged lines are output, the step ran to its end")

			_, err = sh.Run(ctx, sandbox.ExecRequest{Command: "set +vx", Timeout: 10 * time.Second})
			require.NoError(t, err)
			res, err = sh.Run(ctx, sandbox.ExecRequest{Command: "echo next", Timeout: 10 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, "next\n", string(res.Output), "the protocol is still in step")
		})
	}
}

// TestSentinelFreshPerStep: each step's secret is new and unrelated to the
// RBX_STEP marker exported to it.
func TestSentinelFreshPerStep(t *testing.T) {
	sh, rec := startRecorded(t, session.StartCommand)
	for i := 0; i < 3; i++ {
		_, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "true", Timeout: 10 * time.Second})
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	markers := regexp.MustCompile(`RBX_STEP=(\S+)`).FindAllStringSubmatch(rec.String(), -1)
	require.Len(t, markers, 4)
	for _, m := range secretRE.FindAllStringSubmatch(rec.String(), -1) {
		assert.Len(t, m[1], 32, "128 random bits")
		assert.False(t, seen[m[1]], "a secret is never reused")
		seen[m[1]] = true
		for _, k := range markers {
			assert.NotContains(t, k[1], m[1][:12])
		}
	}
	assert.Len(t, seen, 4)
}
