package server

import "github.com/rbx-sandbox/rbx/server/api"

// The wire types live in package api, so clients build without the
// server. These aliases and constants keep the old names: the server's
// own code goes on using the short names, and callers that still write
// server.ResetRequest or server.StateOpen keep compiling. New client code
// imports server/api.

// Requests and responses.
type (
	TaskSummary        = api.TaskSummary
	TaskState          = api.TaskState
	HistoryEvent       = api.HistoryEvent
	Page               = api.Page
	ResetRequest       = api.ResetRequest
	End                = api.End
	ResetResponse      = api.ResetResponse
	EpisodeInfo        = api.EpisodeInfo
	Timings            = api.Timings
	StepRequest        = api.StepRequest
	StepResponse       = api.StepResponse
	StepInfo           = api.StepInfo
	ToolCall           = api.ToolCall
	EvaluateResponse   = api.EvaluateResponse
	Intervention       = api.Intervention
	EpisodeSummary     = api.EpisodeSummary
	Action             = api.Action
	Evaluation         = api.Evaluation
	ForkRequest        = api.ForkRequest
	ForkResponse       = api.ForkResponse
	EvidenceRequest    = api.EvidenceRequest
	EvidenceResponse   = api.EvidenceResponse
	EvidenceCost       = api.EvidenceCost
	RefVersion         = api.RefVersion
	CandidateEvent     = api.CandidateEvent
	ReferencesResponse = api.ReferencesResponse
	APIError           = api.APIError
)

// Episode states.
const (
	StateOpen      = api.StateOpen
	StateEvaluated = api.StateEvaluated
	StateClosed    = api.StateClosed
	StateExpired   = api.StateExpired
	StateFailed    = api.StateFailed
	StateLost      = api.StateLost
	StateTruncated = api.StateTruncated
)

// Error codes.
const (
	CodeBadRequest      = api.CodeBadRequest
	CodeBadToolCall     = api.CodeBadToolCall
	CodeBadCheckpoint   = api.CodeBadCheckpoint
	CodeUnknownTask     = api.CodeUnknownTask
	CodeUnknownEpisode  = api.CodeUnknownEpisode
	CodeUnknownVersion  = api.CodeUnknownVersion
	CodeEpisodeFinished = api.CodeEpisodeFinished
	CodeStepLimit       = api.CodeStepLimit
	CodeResetFailed     = api.CodeResetFailed
	CodeSandboxLost     = api.CodeSandboxLost
	CodeTaskBroken      = api.CodeTaskBroken
	CodeStepConflict    = api.CodeStepConflict
	CodeUnauthorized    = api.CodeUnauthorized
	CodeTooLarge        = api.CodeTooLarge
	CodeTooManyEpisodes = api.CodeTooManyEpisodes
	CodeNotFound        = api.CodeNotFound
	CodeMethod          = api.CodeMethod
	CodeShuttingDown    = api.CodeShuttingDown
	CodeInternal        = api.CodeInternal
	CodeCapacity        = api.CodeCapacity
	CodeRateLimited     = api.CodeRateLimited
)

// Truncations, candidate results and the aggregated series' label.
const (
	TruncStepLimit      = api.TruncStepLimit
	TruncEpisodeTimeout = api.TruncEpisodeTimeout

	CandidateSeen     = api.CandidateSeen
	CandidateVerified = api.CandidateVerified
	CandidateAdopted  = api.CandidateAdopted
	CandidateRejected = api.CandidateRejected

	AllTasks = api.AllTasks
)
