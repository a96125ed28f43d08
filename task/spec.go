package task

import "time"

// Defaults of the task format that are not sandbox defaults (those are
// applied by provision.Spec).
const (
	// DefaultVerifyTimeout bounds the verifier when verify.timeout is unset.
	DefaultVerifyTimeout = 300 * time.Second
	// DefaultEpisodeTimeout bounds an episode when limits.episode_timeout is unset.
	DefaultEpisodeTimeout = 30 * time.Minute
)

// EpisodeTimeout bounds a whole episode: limits.episode_timeout, or DefaultEpisodeTimeout.
func (t *Task) EpisodeTimeout() time.Duration {
	return orDefault(t.Limits.EpisodeTimeout.D(), DefaultEpisodeTimeout)
}

// VerifyTimeout bounds the verifier: verify.timeout, or DefaultVerifyTimeout.
func (t *Task) VerifyTimeout() time.Duration {
	return orDefault(t.Verify.Timeout.D(), DefaultVerifyTimeout)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
