package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/task"
)

func TestOptions(t *testing.T) {
	tests := []struct {
		name    string
		opt     rollout.Option
		wantErr string
		check   func(t *testing.T, s rollout.Settings)
	}{
		{"rollouts", rollout.WithRollouts(3), "", func(t *testing.T, s rollout.Settings) { assert.Equal(t, 3, s.Rollouts) }},
		{"no rollouts", rollout.WithRollouts(0), "rollouts 0: expected ≥ 1", nil},
		{"concurrency", rollout.WithConcurrency(2), "", func(t *testing.T, s rollout.Settings) { assert.Equal(t, 2, s.Concurrency) }},
		{"no concurrency", rollout.WithConcurrency(0), "concurrency 0: expected ≥ 1", nil},
		{"max steps", rollout.WithMaxSteps(5), "", func(t *testing.T, s rollout.Settings) { assert.Equal(t, 5, s.MaxSteps) }},
		{"no steps", rollout.WithMaxSteps(0), "max steps 0: expected ≥ 1", nil},
		{"episode timeout", rollout.WithEpisodeTimeout(time.Minute), "", func(t *testing.T, s rollout.Settings) { assert.Equal(t, time.Minute, s.EpisodeTimeout) }},
		{"no episode time", rollout.WithEpisodeTimeout(0), "episode timeout 0s: expected > 0", nil},
		{"seed", rollout.WithSeed(7), "", func(t *testing.T, s rollout.Settings) { assert.Equal(t, uint64(7), s.Seed) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rollout.DefaultSettings()
			err := s.Apply(tt.opt)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, s)
		})
	}
}

func TestDefaultSettings(t *testing.T) {
	s := rollout.DefaultSettings()
	assert.Equal(t, 8, s.Rollouts)
	assert.Equal(t, 4, s.Concurrency)
	assert.Equal(t, uint64(1), s.Seed)
	assert.NotNil(t, s.Log)
}

func TestDerived(t *testing.T) {
	tk := &task.Task{ID: "t"}
	tests := []struct {
		name      string
		opts      []rollout.Option
		remaining int
		steps     int
		timeout   time.Duration
		seed1     uint64
	}{
		{name: "defaults", remaining: 5, steps: 36, timeout: tk.EpisodeTimeout(), seed1: 1_000_004},
		{name: "set", opts: []rollout.Option{rollout.WithMaxSteps(3), rollout.WithEpisodeTimeout(time.Second), rollout.WithSeed(2)},
			remaining: 5, steps: 3, timeout: time.Second, seed1: 2_000_007},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rollout.DefaultSettings()
			require.NoError(t, s.Apply(tt.opts...))
			assert.Equal(t, tt.steps, s.StepLimit(tt.remaining), "4·(T−k)+16 by default")
			assert.Equal(t, tt.timeout, s.Timeout(tk))
			assert.Equal(t, tt.seed1, s.RolloutSeed(1))
			assert.NotEqual(t, s.RolloutSeed(0), s.RolloutSeed(1))
		})
	}
}
