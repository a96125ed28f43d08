package replayer_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// TestIntegrationOTPReplayBeatsSnapshot is the seed's argument for replay
// over snapshots (docs/overview.md): after the OTP recorded in a first run has
// expired, replaying the trajectory fetches a fresh code and deploys, while
// restoring the recorded .deploy_otp content (what a filesystem snapshot
// does) is rejected by deploy.sh.
func TestIntegrationOTPReplayBeatsSnapshot(t *testing.T) {
	var ex example
	for _, e := range loadExamples(t) {
		if e.name == "deploy-otp" {
			ex = e
		}
	}
	require.NotNil(t, ex.task, "deploy-otp example")
	rt := dockerRuntime(t, ex.task.Image)
	const period = time.Second // codes live 1–2 s
	tk := *ex.task
	tk.Env = maps.Clone(tk.Env)
	tk.Env["OTP_PERIOD"] = "1"
	rp, err := replayer.New(replayer.WithServices(map[string]string{"otp": startOTP(t, &tk, period)}))
	require.NoError(t, err)
	ctx := context.Background()
	httpStep, writeStep := -1, -1
	for i, s := range ex.traj.Steps {
		switch {
		case s.Action == trajectory.KindHTTP:
			httpStep = i
		case s.Action == trajectory.KindWriteFile && s.Path == ".deploy_otp":
			writeStep = i
		}
	}
	require.True(t, httpStep >= 0 && writeStep > httpStep, "trajectory fetches then writes the OTP")

	// First run: replay everything, keep the file content it produced.
	first := create(t, rt, provision.Spec(&tk))
	require.NoError(t, provision.Prepare(ctx, first, &tk))
	_, err = rp.Replay(ctx, first, &tk, ex.traj, ex.traj.Len())
	require.NoError(t, err)
	recorded, err := first.ReadFile(ctx, ".deploy_otp")
	require.NoError(t, err)

	time.Sleep(2*period + 200*time.Millisecond) // the recorded code is now expired

	// Replay in a fresh sandbox: a fresh code is fetched and accepted.
	fresh := create(t, rt, provision.Spec(&tk))
	require.NoError(t, provision.Prepare(ctx, fresh, &tk))
	_, err = rp.Replay(ctx, fresh, &tk, ex.traj, ex.traj.Len())
	require.NoError(t, err, "replay after expiry")
	v, err := verifier.Run(ctx, fresh, &tk)
	require.NoError(t, err)
	assert.True(t, v.Passed, "verifier after replay: %s", v.Output)
	code, err := fresh.ReadFile(ctx, ".deploy_otp")
	require.NoError(t, err)
	assert.NotEqual(t, string(recorded), string(code), "a new code was fetched")

	// Snapshot: restore the recorded file instead of re-running the fetch.
	for _, content := range []string{string(recorded), recordedCode(t, ex.traj.Steps[httpStep])} {
		snap := create(t, rt, provision.Spec(&tk))
		require.NoError(t, provision.Prepare(ctx, snap, &tk))
		run := rp.Start(snap, &tk, ex.traj)
		_, err = run.To(ctx, httpStep)
		require.NoError(t, err)
		require.NoError(t, snap.WriteFile(ctx, ".deploy_otp", []byte(content), 0o644))
		res, err := snap.Exec(ctx, sandbox.ExecRequest{Command: "./deploy.sh"})
		require.NoError(t, err)
		assert.NotEqual(t, 0, res.ExitCode, "deploy with restored code %q must fail: %s", content, res.Output)
		assert.Contains(t, string(res.Output), "expired")
	}
}

// recordedCode is the OTP in the http step's recorded response.
func recordedCode(t *testing.T, s trajectory.Step) string {
	require.NotNil(t, s.Observation)
	var body struct{ Code string }
	require.NoError(t, json.Unmarshal([]byte(s.Observation.Output), &body))
	require.NotEmpty(t, body.Code)
	return body.Code
}
