package api

import (
	"encoding/json"

	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// ResetRequest asks for a group of episodes of one task.
type ResetRequest struct {
	Task string `json:"task"`
	// Checkpoint is "auto" (the curriculum decides; the default) or k.
	Checkpoint json.RawMessage `json:"checkpoint,omitempty"`
	// Group is how many episodes start from the same k: absent means 1;
	// 0 or less, or more than the server's budget, is refused (400).
	Group *int `json:"group,omitempty"`
	// Seed is echoed back in each episode's info (replay is deterministic).
	Seed *int64 `json:"seed,omitempty"`
	// FeedCurriculum sends the outcomes of episodes at an explicit k to
	// the curriculum. Off by default: the caller, not the curriculum,
	// chose k (an evaluation sweep, a debugging session), and counting
	// those episodes would move the rollback or pass for Search-Learn
	// probes. Episodes at "auto" always feed it.
	FeedCurriculum bool `json:"feed_curriculum,omitempty"`
	// GroupKey makes resets of one task that carry the same key, sent one
	// by one (a GRPO group's members, each its own session), one group at
	// "auto": the first picks k, the others get the same k and count as
	// its members. A key starts a new group once one of its episodes has
	// ended, or after the server's group window.
	GroupKey string `json:"group_key,omitempty"`
}

// Size is the group's size: Group, or 1 when absent.
func (r ResetRequest) Size() int {
	if r.Group == nil {
		return 1
	}
	return *r.Group
}

// GroupOf is a Group of n, for callers building a request.
func GroupOf(n int) *int { return &n }

// ResetResponse is a group of episodes at one checkpoint.
type ResetResponse struct {
	Task     string        `json:"task"`
	K        int           `json:"k"`
	T        int           `json:"t"`
	Purpose  string        `json:"purpose"`
	Tools    []tools.Tool  `json:"tools"`
	Episodes []EpisodeInfo `json:"episodes"`
	TotalMS  float64       `json:"total_ms"`
}

// EpisodeInfo is one episode handed out by reset or fork.
type EpisodeInfo struct {
	ID   string `json:"id"`
	Task string `json:"task"`
	K    int    `json:"k"`
	T    int    `json:"t"`
	// RefVersion is the version of the task's reference the episode was
	// reset on (1 until a reference refresh).
	RefVersion int               `json:"reference_version"`
	Parent     string            `json:"parent,omitempty"`
	ForkT      *int              `json:"fork_t,omitempty"`
	Seed       *int64            `json:"seed,omitempty"`
	Messages   []json.RawMessage `json:"messages"`
	Timings    Timings           `json:"timings"`
}

// Timings say where a reset's time went.
type Timings struct {
	// ResetMS is the whole reset to k; ReplayMS the steps replayed live.
	ResetMS  float64 `json:"reset_ms"`
	ReplayMS float64 `json:"replay_ms"`
	// PoolWaitMS is the wait for a warm sandbox; CacheApplyMS restoring
	// the state of CachedSteps steps from the prefix cache; CacheBuildMS
	// capturing a state for the cache (a miss pays it once per prefix).
	PoolWaitMS   float64 `json:"pool_wait_ms"`
	CacheApplyMS float64 `json:"cache_apply_ms,omitempty"`
	CacheBuildMS float64 `json:"cache_build_ms,omitempty"`
	CachedSteps  int     `json:"cached_steps,omitempty"`
	// Cache is how the prefix cache served the reset: hit, built, bypass,
	// or empty when it is off.
	Cache string `json:"cache,omitempty"`
	// Staged: the sandbox was restored from the cache ahead of the reset.
	Staged bool `json:"staged,omitempty"`
	// InheritMS is a fork's replay of the parent's actions.
	InheritMS float64 `json:"inherit_ms,omitempty"`
}
