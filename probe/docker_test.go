package probe_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
)

// TestIntegrationExpertDocker: with the expert policy every valid
// checkpoint of every example scores 1.0 on docker (one rollout each: the
// expert is deterministic, and the reset and verifier are the real ones).
func TestIntegrationExpertDocker(t *testing.T) {
	rt := dockerRuntime(t, "rbx/busybox:latest", "rbx/debian:bookworm")
	services := map[string]string{"otp": otpService(t)}
	for _, name := range []string{"run-sh-path", "deploy-otp", "fix-tests"} {
		t.Run(name, func(t *testing.T) {
			tk, tr := example(t, name)
			p := newProber(t, rt, policy.Expert{}, services, probe.WithRollouts(1))
			res, err := p.Run(context.Background(), tk, tr)
			require.NoError(t, err)
			valid := 0
			for k := range tr.Len() {
				if tr.ValidCheckpoint(k) {
					valid++
				}
			}
			require.Len(t, res.Points, valid)
			for _, pt := range res.Points {
				assert.Equal(t, 1.0, pt.PHat, "k=%d: %s", pt.K, pt.LastError)
				assert.Zero(t, pt.Errors, "k=%d: %s", pt.K, pt.LastError)
			}
			assert.Nil(t, res.Bottleneck)
		})
	}
}

// TestIntegrationNoisyDocker repeats the noisy bottleneck check on docker:
// run-sh-path's step 4 (write_file scripts/run.sh) corrupted with
// probability 0.9, 16 rollouts per checkpoint, at k = 3, 4, 5 (before, at
// and after j: a full sweep on docker takes minutes on two cores, and
// TestNoisyBottleneckLocal sweeps every checkpoint).
func TestIntegrationNoisyDocker(t *testing.T) {
	rt := dockerRuntime(t, "rbx/busybox:latest")
	tk, tr := example(t, "run-sh-path")
	const j = 4
	noisy := policy.Noisy{Noise: policy.Noise{Steps: map[int]float64{j: 0.9}}}
	sel, err := probe.ParseCheckpoints("3-5")
	require.NoError(t, err)
	p := newProber(t, rt, noisy, nil, probe.WithRollouts(16), probe.WithCheckpoints(sel))
	res, err := p.Run(context.Background(), tk, tr)
	require.NoError(t, err)
	require.NotNil(t, res.Bottleneck)
	assert.Equal(t, j, res.Bottleneck.K)
	assert.True(t, res.Bottleneck.Confident)
	require.Len(t, res.Points, 3)
	for _, pt := range res.Points {
		assert.Zero(t, pt.Errors, "k=%d: %s", pt.K, pt.LastError)
	}
	assert.Equal(t, 1.0, res.Points[2].PHat, "k=5, after the corrupted step")
}
