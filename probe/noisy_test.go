package probe_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
)

// TestNoisyBottleneckLocal: the noisy policy corrupting only step j with
// probability 0.9, 16 rollouts per checkpoint: from k ≤ j the policy plays
// the corrupted step, so p̂ collapses; from k > j it never does, so p̂ = 1.
// Scanning from the end, the first p̂ < θ is k = j, whose step is j. One j
// per action kind on the busybox examples (local runtime: fast, and the
// rule is the same on docker; TestIntegrationNoisyDocker repeats one case
// there). fix-tests' Python steps make its sweeps slow; the noop kind is
// covered by the synthetic trajectory of TestSearchFewerRollouts.
func TestNoisyBottleneckLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about a thousand rollouts")
	}
	cases := []struct {
		example string
		j       int
		kind    string
	}{
		{"run-sh-path", 4, "write_file scripts/run.sh (the seed's trap)"},
		{"run-sh-path", 6, "edit_file"},
		{"run-sh-path", 9, "shell mv ... run.sh"},
		{"run-sh-path", 2, "read_file"},
		{"deploy-otp", 4, "http GET otp"},
		{"deploy-otp", 7, "shell (last step)"},
	}
	rt := localRuntime(t)
	services := map[string]string{"otp": otpService(t)}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/j=%d", c.example, c.j), func(t *testing.T) {
			tk, tr := example(t, c.example)
			noisy := policy.Noisy{Noise: policy.Noise{Steps: map[int]float64{c.j: 0.9}}}
			p := newProber(t, rt, noisy, services, probe.WithRollouts(16))
			res, err := p.Run(context.Background(), tk, tr)
			require.NoError(t, err)
			require.NotNil(t, res.Bottleneck, "%s: no bottleneck found", c.kind)
			assert.Equal(t, c.j, res.Bottleneck.K, "%s", c.kind)
			assert.Equal(t, string(tr.Steps[c.j].Action), res.Bottleneck.Action)
			for _, pt := range res.Points {
				assert.Zero(t, pt.Errors, "k=%d: %s", pt.K, pt.LastError)
				if pt.K > c.j {
					assert.Equal(t, 1.0, pt.PHat, "k=%d after the corrupted step", pt.K)
				} else {
					assert.Less(t, pt.PHat, 0.5, "k=%d before the corrupted step", pt.K)
				}
			}
		})
	}
}
