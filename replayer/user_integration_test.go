package replayer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestIntegrationReplayAsUser: a trajectory of a task with user "1000"
// on Debian replays its file actions as that user. An agent's write of
// /etc/issue and read of /etc/shadow, refused when recorded, are refused
// again and match; recorded as successes, they diverge at that step (the
// verifier never sees a state the agent did not reach); the agent's own
// files are written. A policy's live write gets the shell's words.
func TestIntegrationReplayAsUser(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	failed := func(out string) *trajectory.Observation { return obs(out, 1) }
	write := func(p string, o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindWriteFile, Path: p, Content: ptr("pwned\n"), Observation: o}
	}
	read := func(p string, o *trajectory.Observation) trajectory.Step {
		return trajectory.Step{Action: trajectory.KindReadFile, Path: p, Observation: o}
	}
	edit := trajectory.Step{Action: trajectory.KindEditFile, Path: "/etc/hostname", Old: ptr("\n"), New: ptr("x\n"),
		Observation: failed("[Errno 13] Permission denied: '/etc/hostname'")}
	tests := []struct {
		name   string
		steps  []trajectory.Step
		reason reason.Reason // "" when the replay matches
		at     int
	}{
		{"refusals as recorded", []trajectory.Step{
			write("/etc/issue", failed("[Errno 13] Permission denied: '/etc/issue'")),
			write("/root/.profile", failed("Permission denied")),
			read("/etc/shadow", failed("cat: /etc/shadow: Permission denied")),
			edit,
			write("notes/mine.txt", nil),
			shell("cat notes/mine.txt; stat -c %u:%g notes/mine.txt; cat /etc/issue", nil),
		}, "", 0},
		{"a recorded write that the user cannot do", []trajectory.Step{
			write("notes/ok.txt", nil), write("/etc/issue", obs("", 0)), shell("echo never", nil),
		}, reason.Action, 1},
		{"a recorded read that the user cannot do", []trajectory.Step{read("/etc/shadow", nil)}, reason.Action, 0},
	}
	r, err := replayer.New()
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
				sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", User: "1000", Mode: mode})
				tk := &task.Task{ID: "t", User: "1000"}
				rep, err := r.Replay(context.Background(), sb, tk, &trajectory.Trajectory{ID: "x", Steps: tc.steps}, len(tc.steps))
				if tc.reason == "" {
					require.NoError(t, err, mode)
					last := rep.Steps[len(rep.Steps)-1].Output
					assert.Contains(t, last, "pwned\n1000:1000\n", mode)
					assert.NotContains(t, last[len("pwned\n1000:1000\n"):], "pwned", "%s: /etc/issue untouched", mode)
					continue
				}
				var se *replayer.StepError
				require.ErrorAs(t, err, &se, mode)
				assert.Equal(t, tc.reason, se.Reason, mode)
				assert.Equal(t, tc.at, se.Index, mode)
				assert.Contains(t, se.Error(), "Permission denied", mode)
			}
		})
	}
	t.Run("a policy's live write", func(t *testing.T) {
		sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", User: "1000"})
		run := r.Start(sb, &task.Task{ID: "t", User: "1000"}, &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{shell("true", nil)}})
		res, err := run.Do(context.Background(), write("/etc/issue", nil))
		o, oerr := replayer.Observe(res, err)
		require.NoError(t, oerr, "a refusal is not the sandbox's failure")
		assert.Equal(t, "write /etc/issue: Permission denied", o.Error)
		assert.Equal(t, 1, *o.ExitCode)
		got, err := run.Do(context.Background(), shell("cat /etc/issue", nil))
		require.NoError(t, err)
		assert.NotContains(t, got.Output, "pwned")
	})
}
