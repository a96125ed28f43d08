package rock

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// localSandbox is a sandbox of the local backend, removed after the test.
func localSandbox(t *testing.T) sandbox.Sandbox {
	t.Helper()
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	sb, err := rt.Create(context.Background(), sandbox.Spec{})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	return sb
}

func startTestBash(t *testing.T, sb sandbox.Sandbox, spec sessionSpec) (*bashSession, string) {
	t.Helper()
	if spec.OutputCap == 0 {
		spec.OutputCap = 1 << 20
	}
	s, out, err := startBash(context.Background(), sb, spec)
	require.NoError(t, err)
	t.Cleanup(func() { s.close(context.Background(), sb) })
	return s, out
}

// dockerSandbox is a container of rbx/debian (which has bash), removed
// after the test; skipped without an engine.
func dockerSandbox(t *testing.T) sandbox.Sandbox {
	t.Helper()
	rt := dockertest.Runtime(t, debianImage)
	sb, err := rt.Create(context.Background(), sandbox.Spec{Image: debianImage})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	return sb
}

const debianImage = "rbx/debian:bookworm"

// eachBackend runs f on a sandbox of every backend with terminals here.
func eachBackend(t *testing.T, f func(t *testing.T, sb sandbox.Sandbox)) {
	t.Run("local", func(t *testing.T) { f(t, localSandbox(t)) })
	t.Run("docker", func(t *testing.T) { f(t, dockerSandbox(t)) })
	t.Run("containerd", func(t *testing.T) {
		rt := containerdtest.Runtime(t, debianImage)
		sb, err := rt.Create(context.Background(), sandbox.Spec{Image: debianImage})
		t.Cleanup(func() {
			if sb != nil {
				_ = sb.Remove(context.Background())
			}
		})
		require.NoError(t, err)
		f(t, sb)
	})
}

func TestBashSessionSemantics(t *testing.T) { eachBackend(t, testBashSessionSemantics) }

func testBashSessionSemantics(t *testing.T, sb sandbox.Sandbox) {
	ctx := context.Background()
	s, _ := startTestBash(t, sb, sessionSpec{Name: "default", EnvEnable: true, Env: map[string]string{"FOO": "it's \"x\""}})
	run := func(cmd string) runResult {
		t.Helper()
		res, err := s.run(ctx, cmd, 10*time.Second)
		require.NoError(t, err, cmd)
		return res
	}
	assert.Equal(t, runResult{Output: `it's "x"`, ExitCode: 0}, run(`echo "$FOO"`))
	assert.Equal(t, runResult{Output: "out\nerr", ExitCode: 3}, run("echo out; echo err >&2; (exit 3)"))
	run("cd /tmp && export BAR=1 && f() { echo fn; }")
	assert.Equal(t, "/tmp 1 fn", run(`echo "$(pwd) $BAR $(f)"`).Output, "cwd, exports and functions persist")
	assert.Equal(t, "a\nb", run("echo a\necho b").Output, "several lines")
	assert.Equal(t, "x\ny", run("cat <<'EOF'\nx\ny\nEOF").Output, "heredoc")
	long := strings.Repeat("0123456789", 1000)
	assert.Equal(t, long, run("echo "+long).Output, "a line longer than the terminal's 4095 bytes")
	assert.Equal(t, "\x01é'\\", run(`printf '%s' $'\x01'"é'\\"`).Output, "control and non-ASCII bytes typed safely")
	assert.Equal(t, "red", run(`printf '\033[31mred\033[0m'`).Output, "ANSI stripped")

	res := run("nohup sleep 0.3 < /dev/null > /dev/null 2>&1 &")
	assert.Regexp(t, regexp.MustCompile(`^\[1\]\s+\d+$`), res.Output, "job-control notice")
	pid := strings.Fields(res.Output)[1]
	assert.Equal(t, 0, run("kill -0 "+pid).ExitCode)
	time.Sleep(600 * time.Millisecond)
	res = run("kill -0 " + pid)
	assert.Equal(t, 1, res.ExitCode, res.Output)
	assert.Contains(t, res.Output, "No such process")

	_, err := s.run(ctx, "echo (", 10*time.Second)
	var se *syntaxError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "/bin/bash: line 1: syntax error")
	assert.Equal(t, "still", run("echo still").Output, "the session survives a syntax error")
}

func TestBashSessionTimeoutAndExit(t *testing.T) { eachBackend(t, testBashSessionTimeoutAndExit) }

func testBashSessionTimeoutAndExit(t *testing.T, sb sandbox.Sandbox) {
	ctx := context.Background()
	s, _ := startTestBash(t, sb, sessionSpec{Name: "t", EnvEnable: true})
	start := time.Now()
	_, err := s.run(ctx, "sleep 30", 300*time.Millisecond)
	require.ErrorIs(t, err, errTimeout)
	assert.Less(t, time.Since(start), 5*time.Second)
	res, err := s.run(ctx, "echo back", 10*time.Second)
	require.NoError(t, err, "the session recovers after Ctrl-C")
	assert.Equal(t, "back", res.Output)
	_, err = s.run(ctx, "exit 4", 10*time.Second)
	require.ErrorIs(t, err, errSessionGone)
	_, err = s.run(ctx, "echo x", 10*time.Second)
	require.ErrorIs(t, err, errSessionGone)
}

func TestBashSessionEnvDisabled(t *testing.T) {
	t.Setenv("RBX_ROCK_TEST_HOST", "leak")
	sb := localSandbox(t)
	s, _ := startTestBash(t, sb, sessionSpec{Name: "e", Env: map[string]string{"ONLY": "1"}})
	res, err := s.run(context.Background(), "echo \"[$ONLY][$LANG][$RBX_ROOT]\"; command -v ls >/dev/null && echo path", 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "[1][]["+sb.(*local.Sandbox).Root()+"]\npath", res.Output, "only RBX_ROOT kept, which tracks the processes")
}
