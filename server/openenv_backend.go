package server

import (
	"context"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/server/openenv"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// openenvBackend runs OpenEnv sessions' episodes through the same reset,
// step, evaluate and close as /v1: the curriculum, the prefix cache, the
// journal and the metrics see them alike.
type openenvBackend struct{ s *Server }

// endTools end an episode: the verifier runs and the reward comes with
// done (OpenEnv has no evaluate message).
var endTools = []string{"submit", "finish"}

func (b *openenvBackend) Reset(ctx context.Context, d openenv.ResetData) (openenv.Episode, map[string]any, error) {
	task := d.Task
	if task == "" {
		ids := b.s.refs.taskIDs()
		if len(ids) != 1 {
			return openenv.Episode{}, nil, openenv.Errorf(openenv.CodeValidation, `reset data: "task": required (this server has %d tasks; GET /v1/tasks lists them)`, len(ids))
		}
		task = ids[0]
	}
	resp, aerr := b.s.resetGroup(ctx, ResetRequest{Task: task, Checkpoint: d.Checkpoint, GroupKey: d.GroupKey})
	if aerr != nil {
		return openenv.Episode{}, nil, openenvErr(aerr)
	}
	info := resp.Episodes[0]
	ep := openenv.Episode{ID: info.ID, Task: resp.Task, K: resp.K, T: resp.T}
	obs := map[string]any{"episode_id": info.ID, "task": resp.Task, "k": resp.K, "t": resp.T, "purpose": resp.Purpose,
		"messages": info.Messages, "tools": append(openenvTools(resp.Tools), endTool)}
	return ep, obs, nil
}

func (b *openenvBackend) Step(ctx context.Context, id string, call openenv.ToolCall) (openenv.Result, error) {
	if slices.Contains(endTools, call.Name) {
		return b.end(ctx, id, map[string]any{})
	}
	resp, aerr := b.s.stepEpisode(ctx, id, StepRequest{ToolCall: &ToolCall{Name: call.Name, Arguments: call.Arguments}})
	switch {
	case aerr == nil:
	case aerr.Code == CodeBadToolCall && !b.known(call.Name):
		return openenv.Result{Observation: map[string]any{"error": openenv.ToolNotFound("%s", aerr.Message)}}, nil
	case aerr.Code == CodeBadToolCall:
		return openenv.Result{Observation: map[string]any{"error": openenv.InvalidArgs("%s", aerr.Message)}}, nil
	case aerr.Code == CodeStepLimit: // ends like the step that reached it
		return b.end(ctx, id, map[string]any{"truncated": TruncStepLimit})
	case aerr.Code == CodeSandboxLost || aerr.Code == CodeTaskBroken:
		// Over, but not the policy's failure: no reward (a trainer keeps
		// it out of its group statistics); the end says who and whether
		// to retry.
		return openenv.Result{Observation: map[string]any{"error": openenv.ExecutionError("%s", aerr.Message), "end": endOf(aerr)},
			Done: true}, nil
	default:
		return openenv.Result{}, openenvErr(aerr)
	}
	obs := map[string]any{"result": chat.ObservationText(resp.Observation), "observation": resp.Observation, "step": resp.Step}
	if resp.Info.Recovered > 0 {
		obs["recovered"] = resp.Info.Recovered
	}
	switch {
	case resp.Truncated && resp.Info.Truncation == TruncEpisodeTimeout: // the episode is over, without a verdict
		zero := 0.0
		obs["truncated"] = resp.Info.Truncation
		return openenv.Result{Observation: obs, Reward: &zero, Done: true}, nil
	case resp.Truncated:
		obs["truncated"] = resp.Info.Truncation
		return b.end(ctx, id, obs)
	case resp.Terminated: // the session shell ended: nothing more can run
		obs["terminated"] = true
		return b.end(ctx, id, obs)
	}
	zero := 0.0
	return openenv.Result{Observation: obs, Reward: &zero}, nil
}

// end evaluates episode id: its reward, with done.
func (b *openenvBackend) end(ctx context.Context, id string, obs map[string]any) (openenv.Result, error) {
	ev, aerr := b.s.evaluateEpisode(ctx, id)
	if aerr != nil && (aerr.Code == CodeSandboxLost || aerr.Code == CodeTaskBroken) {
		return openenv.Result{Observation: map[string]any{"error": openenv.ExecutionError("%s", aerr.Message), "end": endOf(aerr)}, Done: true}, nil
	}
	if aerr != nil {
		return openenv.Result{}, openenvErr(aerr)
	}
	if _, ok := obs["result"]; !ok {
		obs["result"] = map[bool]string{true: "success: the verifier passed", false: "failure: the verifier did not pass"}[ev.Success]
	}
	obs["success"], obs["score"] = ev.Success, ev.Score
	if ev.End != nil {
		obs["end"] = ev.End
	}
	if ev.Recovered > 0 {
		obs["recovered"] = ev.Recovered
	}
	obs["verifier"] = map[string]any{"passed": ev.Verifier.Passed, "exit_code": ev.Verifier.ExitCode, "output": clip(ev.Verifier.Output, 4096)}
	reward := ev.Reward
	return openenv.Result{Observation: obs, Reward: &reward, Done: true}, nil
}

func (b *openenvBackend) Close(ctx context.Context, id string) error {
	if _, aerr := b.s.closeByID(ctx, id); aerr != nil && aerr.Code != CodeEpisodeFinished && aerr.Code != CodeUnknownEpisode {
		return aerr
	}
	return nil
}

// Tools are rbx's actions, keys (for tasks whose agent types into a
// terminal: a reset's observation lists its task's own) and submit.
func (b *openenvBackend) Tools() []openenv.Tool {
	return append(openenvTools(tools.SchemasOf(allKinds())), endTool)
}

// allKinds is every action a policy may call in some task.
func allKinds() []trajectory.Kind { return append(slices.Clone(tools.Kinds), tools.TerminalKinds...) }

// endTool ends an OpenEnv episode.
var endTool = openenv.Tool{Name: endTools[0],
	Description: "End the episode: the task's verifier runs, and the reward comes with done.",
	InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}}

// openenvTools are function schemas as OpenEnv tools.
func openenvTools(ts []tools.Tool) []openenv.Tool {
	var out []openenv.Tool
	for _, t := range ts {
		out = append(out, openenv.Tool{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	return out
}

// known reports whether name is a tool of some task (the episode's task
// decides at its step).
func (b *openenvBackend) known(name string) bool {
	return slices.Contains(allKinds(), trajectory.Kind(name)) || slices.Contains(endTools, name)
}

// openenvErr maps an API error onto the protocol's codes.
func openenvErr(e *APIError) *openenv.Error {
	code := openenv.CodeExecution
	switch e.Code {
	case CodeCapacity, CodeTooManyEpisodes, CodeRateLimited:
		code = openenv.CodeCapacity
	case CodeBadRequest, CodeUnknownTask, CodeBadCheckpoint, CodeUnknownVersion:
		code = openenv.CodeValidation
	case CodeShuttingDown:
		code = openenv.CodeSession
	}
	return &openenv.Error{Code: code, Message: strings.TrimSpace(e.Message), Data: map[string]any{"rbx_code": e.Code}}
}

// endOf is the end an error answer carries (attribution, reason,
// retryable), as the /v1 error's details have it.
func endOf(e *APIError) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"attribution", "reason", "retryable", "recovered"} {
		if v, ok := e.Details[k]; ok {
			out[k] = v
		}
	}
	return out
}
