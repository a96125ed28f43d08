package episode_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestAttribute(t *testing.T) {
	gone := func(cause string) error {
		return fmt.Errorf("exec: %w", &sandbox.GoneError{ID: "c", Cause: cause, ExitCode: 137})
	}
	tests := []struct {
		name   string
		err    error
		h      sandbox.Health
		who    episode.Attribution
		reason string
	}{
		{"oom killed sandbox", gone(sandbox.CauseOOMKilled), sandbox.Health{}, episode.Policy, episode.ReasonOOMKilled},
		{"pids at limit", errors.New("exec failed"), sandbox.Health{Pids: 64, PidsLimit: 64}, episode.Policy, episode.ReasonPidsExhausted},
		{"fork refused", errors.New("fork: Resource temporarily unavailable"), sandbox.Health{}, episode.Policy, episode.ReasonPidsExhausted},
		{"dash could not fork", errors.New("/bin/sh: 1: Cannot fork"), sandbox.Health{}, episode.Policy, episode.ReasonPidsExhausted},
		{"shell ended", fmt.Errorf("step: %w", sandbox.ErrSessionLost), sandbox.Health{}, episode.Policy, episode.ReasonShellExited},
		{"paused", errors.New("timeout"), sandbox.Health{Frozen: true}, episode.Infrastructure, episode.ReasonFrozen},
		{"no answer by the deadline", fmt.Errorf("%w: exec", episode.ErrFrozen), sandbox.Health{}, episode.Infrastructure, episode.ReasonUnresponsive},
		{"init ended by itself", fmt.Errorf("exec: %w", &sandbox.GoneError{ID: "c", Cause: sandbox.CauseExited, ExitCode: 2}), sandbox.Health{}, episode.Policy, episode.ReasonInitExited},
		{"stopped, status unknown", fmt.Errorf("exec: %w", &sandbox.GoneError{ID: "c", Cause: sandbox.CauseExited}), sandbox.Health{}, episode.Infrastructure, episode.ReasonExited},
		{"killed from outside", gone(sandbox.CauseKilled), sandbox.Health{}, episode.Infrastructure, episode.ReasonKilled},
		{"removed", gone(sandbox.CauseRemoved), sandbox.Health{}, episode.Infrastructure, episode.ReasonRemoved},
		{"probe sees it removed", errors.New("exec: eof"), sandbox.Health{Gone: &sandbox.GoneError{Cause: sandbox.CauseRemoved}}, episode.Infrastructure, episode.ReasonRemoved},
		{"engine away", fmt.Errorf("exec: %w", sandbox.ErrUnavailable), sandbox.Health{}, episode.Infrastructure, episode.ReasonEngineUnavailable},
		{"killed sandbox's lost session", errors.Join(sandbox.ErrSessionLost, gone(sandbox.CauseKilled)), sandbox.Health{}, episode.Infrastructure, episode.ReasonKilled},
		{"unknown", errors.New("something"), sandbox.Health{}, episode.Infrastructure, episode.ReasonFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			end := episode.Attribute(tc.err, tc.h)
			assert.Equal(t, tc.who, end.Attribution)
			assert.Equal(t, tc.reason, end.Reason)
			assert.Equal(t, tc.who == episode.Infrastructure, end.Retryable)
		})
	}
}

func TestReproduced(t *testing.T) {
	first := episode.Attribute(errors.New("something"), sandbox.Health{})
	assert.True(t, episode.Unexplained(first))
	assert.True(t, first.Repairable())
	end := episode.Reproduced(first)
	assert.Equal(t, episode.Policy, end.Attribution)
	assert.False(t, end.Retryable)
	assert.False(t, episode.Unexplained(episode.Attribute(nil, sandbox.Health{Frozen: true})), "a pause is the outside's")
}
