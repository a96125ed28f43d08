package api

import "github.com/rbx-sandbox/rbx/trajectory/tools"

// ForkResponse is the forked episode.
type ForkResponse struct {
	Episode EpisodeInfo  `json:"episode"`
	Tools   []tools.Tool `json:"tools"`
	TotalMS float64      `json:"total_ms"`
}

// ForkRequest names the step to fork at.
type ForkRequest struct {
	// T is how many of the parent's actions, counted from step 0 with the
	// reference prefix included, the fork replays: the fork continues at
	// step t, where the parent went wrong.
	T *int `json:"t"`
}
