package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/rollout"
)

// foreign is an episode of some other environment.
type foreign struct{ rollout.Episode }

// env is what both environments are.
type env interface {
	rollout.Env
	rollout.Forker
	rollout.Evidencer
}

// TestForeignEpisode: an environment forks and scores only its own
// episodes.
func TestForeignEpisode(t *testing.T) {
	tests := []struct {
		name string
		env  env
		want string
	}{
		{"local", &rollout.Local{}, "not an episode of a local environment"},
		{"served", rollout.NewServed(&fake{}), "not an episode of a served environment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.env.Fork(context.Background(), foreign{}, nil, 0)
			assert.ErrorContains(t, err, tt.want)
			_, _, err = tt.env.Evidence(context.Background(), foreign{}, nil, 0)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
