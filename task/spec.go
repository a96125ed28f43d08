package task

import (
	"maps"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Defaults of the task format that are not sandbox defaults.
const (
	// DefaultVerifyTimeout bounds the verifier when verify.timeout is unset.
	DefaultVerifyTimeout = 300 * time.Second
	// DefaultEpisodeTimeout bounds an episode when limits.episode_timeout is unset.
	DefaultEpisodeTimeout = 30 * time.Minute
)

// SandboxSpec returns the sandbox a task runs in, with every default made
// explicit (workdir /workspace, shell session, network none, and the
// sandbox package's limits; see sandbox.Spec.WithDefaults) and the label
// rbx.task set to the task id (shortened to a legal label value when it
// is longer than 63 characters; the annotation rbx.task keeps it whole).
// For a task with Build, Image is empty: the caller sets it to the tag of
// the image it built.
func (t *Task) SandboxSpec() sandbox.Spec {
	spec := sandbox.Spec{
		Image:   t.Image,
		Workdir: t.Workdir,
		Env:     maps.Clone(t.Env),
		Limits: sandbox.Limits{
			CPUs:        t.Limits.CPUs,
			MemoryBytes: int64(t.Limits.Memory),
			Pids:        t.Limits.Pids,
		},
		Network:     t.Network,
		Labels:      map[string]string{sandbox.LabelTask: sandbox.LabelValue(t.ID)},
		Annotations: map[string]string{sandbox.AnnotationTask: t.ID},
		Mode:        sandbox.Mode(t.Shell),
		StepTimeout: t.Limits.StepTimeout.D(),
		OutputCap:   int(min(t.Limits.Output, 1<<40)),
	}
	return spec.WithDefaults()
}

// StepTimeout bounds one step: limits.step_timeout, or sandbox.DefaultStepTimeout.
func (t *Task) StepTimeout() time.Duration {
	return orDefault(t.Limits.StepTimeout.D(), sandbox.DefaultStepTimeout)
}

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
