package api

import (
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
)

// TaskSummary is one task of the listing.
type TaskSummary struct {
	ID        string `json:"id"`
	T         int    `json:"t"`
	Image     string `json:"image"`
	Reference string `json:"reference"`
	// ReferenceVersion is the version of the reference resets use.
	ReferenceVersion int               `json:"reference_version"`
	Instruction      string            `json:"instruction"`
	Workdir          string            `json:"workdir"`     // the sandbox's working directory
	Checkpoints      []int             `json:"checkpoints"` // the servable k
	Curriculum       curriculum.Status `json:"curriculum"`
	Pool             *pool.Stats       `json:"pool,omitempty"`
}

// TaskState is a task's curriculum state with its recent history.
type TaskState struct {
	curriculum.Status
	History []HistoryEvent `json:"history"`
}

// HistoryEvent is one evaluated episode in a task's curriculum history.
type HistoryEvent struct {
	Episode string    `json:"episode"`
	Task    string    `json:"-"`
	K       int       `json:"k"`
	Purpose string    `json:"purpose,omitempty"`
	Success bool      `json:"success"`
	At      time.Time `json:"at"`
}
