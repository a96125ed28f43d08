package examples_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// example describes what each bundled example must demonstrate.
type example struct {
	name string
	// passFrom is the first checkpoint whose state passes the verifier:
	// every earlier state fails it, every later one passes.
	passFrom int
	// busybox examples must also replay in busybox sh with busybox applets.
	busybox bool
	// services are started for the replay (name → handler URL).
	services func(t *testing.T) map[string]string
}

var bundled = []example{
	{name: "deploy-otp", passFrom: 7, busybox: true, services: otpService},
	{name: "run-sh-path", passFrom: 10, busybox: true},
	{name: "fix-tests", passFrom: 14},
}

// otpService starts the OTP service with the task's secret and period.
func otpService(t *testing.T) map[string]string {
	t.Helper()
	tk := loadTask(t, "deploy-otp")
	period, err := time.ParseDuration(tk.Env["OTP_PERIOD"] + "s")
	require.NoError(t, err)
	h, err := otp.NewServer(tk.Env["OTP_SECRET"], period)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return map[string]string{"otp": srv.URL}
}

func TestExamplesListed(t *testing.T) {
	var names []string
	for _, ex := range bundled {
		names = append(names, ex.name)
	}
	assert.Equal(t, names, examples.Names())
}

func TestExamplesParse(t *testing.T) {
	for _, ex := range bundled {
		t.Run(ex.name, func(t *testing.T) {
			tk := loadTask(t, ex.name)
			tr := loadTrajectory(t, ex.name)
			assert.Equal(t, ex.name, tk.ID)
			assert.Equal(t, "task.yaml", tr.Task)
			assert.NotEmpty(t, tk.Instruction)
			assert.Equal(t, map[string]string{"workspace/": "/workspace/"}, tk.Files)
			assert.Equal(t, map[string]string{"tests/": ".rbx-tests/"}, tk.Verify.Files)
			assert.Equal(t, "sh .rbx-tests/test.sh", tk.Verify.Command)
			require.Len(t, tr.Messages, 2, "system prompt and instruction")
			assertMessages(t, tr.Messages)
			withMessages := 0
			for i, s := range tr.Steps {
				assert.Contains(t, trajectory.Kinds, s.Action, "step %d", i)
				assert.Positive(t, s.Tokens, "step %d: tokens", i)
				if s.Action != trajectory.KindNoop {
					assert.NotNil(t, s.Observation, "step %d: observation", i)
				}
				if len(s.Messages) > 0 {
					withMessages++
					assertMessages(t, s.Messages)
				}
			}
			assert.GreaterOrEqual(t, withMessages, 2, "steps with chat messages")
			assert.Less(t, ex.passFrom, tr.Len())
		})
	}
}

// assertMessages checks that each message is an OpenAI chat message.
func assertMessages(t *testing.T, msgs []json.RawMessage) {
	t.Helper()
	for _, raw := range msgs {
		var m struct {
			Role       string            `json:"role"`
			Content    *string           `json:"content"`
			ToolCalls  []json.RawMessage `json:"tool_calls"`
			ToolCallID string            `json:"tool_call_id"`
		}
		require.NoError(t, json.Unmarshal(raw, &m))
		assert.Contains(t, []string{"system", "user", "assistant", "tool"}, m.Role)
		assert.True(t, m.Content != nil || len(m.ToolCalls) > 0, "message %s has neither content nor tool calls", raw)
		if m.Role == "tool" {
			assert.NotEmpty(t, m.ToolCallID)
		}
	}
}

// TestExamplesReplayOnHost replays each reference trajectory on the host,
// as the local backend will, and checks every recorded observation.
func TestExamplesReplayOnHost(t *testing.T) {
	for _, ex := range bundled {
		t.Run(ex.name, func(t *testing.T) { checkReplay(t, ex, hostFlavor()) })
	}
}

// TestExamplesReplayInBusybox replays the busybox examples in busybox sh with
// only busybox applets, as in rbx/busybox:latest.
func TestExamplesReplayInBusybox(t *testing.T) {
	for _, ex := range bundled {
		if !ex.busybox {
			continue
		}
		t.Run(ex.name, func(t *testing.T) { checkReplay(t, ex, busyboxFlavor(t)) })
	}
}

func checkReplay(t *testing.T, ex example, fl shellFlavor) {
	t.Helper()
	tk, tr := loadTask(t, ex.name), loadTrajectory(t, ex.name)
	var services map[string]string
	if ex.services != nil {
		services = ex.services(t)
	}
	sb := newHostSandbox(t, tk, fl, services)
	sb.replay(t, tr, tr.Len())
	out, code := sb.verify(t)
	assert.Equal(t, 0, code, "verifier after the full trajectory:\n%s", out)
}

// TestExamplesVerifierAtEachCheckpoint resets to every checkpoint k by replay
// and runs the verifier there: it fails before ex.passFrom and passes after,
// so stopping early (for example right after the run.sh trap) earns nothing.
func TestExamplesVerifierAtEachCheckpoint(t *testing.T) {
	for _, ex := range bundled {
		t.Run(ex.name, func(t *testing.T) {
			tk, tr := loadTask(t, ex.name), loadTrajectory(t, ex.name)
			var services map[string]string
			if ex.services != nil {
				services = ex.services(t)
			}
			for k := 0; k <= tr.Len(); k++ {
				sb := newHostSandbox(t, tk, hostFlavor(), services)
				sb.replay(t, tr, k)
				out, code := sb.verify(t)
				if k < ex.passFrom {
					assert.NotEqual(t, 0, code, "k = %d: verifier passed too early:\n%s", k, out)
				} else {
					assert.Equal(t, 0, code, "k = %d: verifier failed:\n%s", k, out)
				}
			}
		})
	}
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, examples.Extract(dir))
	for _, ex := range bundled {
		err := filepath.WalkDir(ex.name, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) == ".go" {
				return err
			}
			want, err := os.ReadFile(p)
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(dir, p))
			require.NoError(t, err, "%s not extracted", p)
			assert.Equal(t, string(want), string(got), p)
			if filepath.Ext(p) == ".sh" {
				st, err := os.Stat(filepath.Join(dir, p))
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o755), st.Mode().Perm(), p)
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// TestScriptsExecutable guards the exec bits the trajectories rely on
// (./deploy.sh, scripts/check.sh) in the source tree.
func TestScriptsExecutable(t *testing.T) {
	for _, p := range []string{"deploy-otp/workspace/deploy.sh", "run-sh-path/workspace/scripts/check.sh"} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode().Perm()&0o100, "%s must be executable", p)
	}
}

// TestFixTestsVerifierCopiesVisibleTests keeps the verifier's copy of the
// visible tests identical to the agent's, so editing tests/ cannot help.
func TestFixTestsVerifierCopiesVisibleTests(t *testing.T) {
	want, err := os.ReadFile("fix-tests/workspace/tests/test_core.py")
	require.NoError(t, err)
	got, err := os.ReadFile("fix-tests/tests/test_core.py")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
