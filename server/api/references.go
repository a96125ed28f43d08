package api

import (
	"time"

	"github.com/rbx-sandbox/rbx/reason"
)

// RefVersion describes one version of a task's reference trajectory.
// Version 1 is the reference loaded at start; reference refresh adopts
// version v+1 from a policy episode reset on version v.
type RefVersion struct {
	Task    string `json:"task"`
	Version int    `json:"version"`
	// Parent is the version the adopted episode was reset on (0 for version 1).
	Parent int `json:"parent,omitempty"`
	// K is the checkpoint the adopted episode started from: the first K
	// steps are Parent's, the rest are the episode's actions.
	K int `json:"k"`
	// Episode is the adopted episode.
	Episode string    `json:"episode,omitempty"`
	ID      string    `json:"id"` // the trajectory's id
	T       int       `json:"t"`
	Adopted time.Time `json:"adopted"`
	Current bool      `json:"current"`
}

// Candidate results, in the order a candidate reaches them.
const (
	CandidateSeen     = "seen"     // a successful, shorter policy episode was queued
	CandidateVerified = "verified" // it passed every repeat of the prefilter's check
	CandidateAdopted  = "adopted"  // it is the task's new reference version
	CandidateRejected = "rejected" // see the event's reason
)

// A rejected candidate's reason is the prefilter's verdict (output,
// exit_code, verify_failed, flaky, ...), reason.Superseded or
// reason.Stale while it waits, reason.Interrupted when the server stops
// during its check, or reason.Infra when the check, the store or the
// curriculum failed (the detail says which).

// CandidateEvent is one step of a candidate reference's life.
type CandidateEvent struct {
	Task    string        `json:"task"`
	Episode string        `json:"episode"`
	Parent  int           `json:"parent"` // the version the episode was reset on
	K       int           `json:"k"`
	T       int           `json:"t"` // the candidate's length
	Result  string        `json:"result"`
	Reason  reason.Reason `json:"reason,omitempty"`
	Detail  string        `json:"detail,omitempty"`
	Version int           `json:"version,omitempty"` // the version it became
	At      time.Time     `json:"at"`
}

// ReferencesResponse lists a task's reference versions and its latest
// candidate events.
type ReferencesResponse struct {
	Task string `json:"task"`
	// Current is the version resets use.
	Current    int              `json:"current"`
	Refresh    bool             `json:"refresh"` // reference refresh is on
	Versions   []RefVersion     `json:"versions"`
	Candidates []CandidateEvent `json:"candidates"`
}
