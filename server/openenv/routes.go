package openenv

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// health is what providers and AutoEnv poll.
func (h *Handler) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
}

// openapiVersion is the protocol version the OpenAPI document declares:
// `openenv validate` reads its profile (openenv-http/1.x) from it.
const openapiVersion = "1.0.0"

// openapi is the OpenAPI document `openenv validate --url` reads first:
// info.version, and the paths, whose /reset, /step and /state (all three,
// or none) tell its mode.
func (h *Handler) openapi(w http.ResponseWriter, _ *http.Request) {
	op := func(summary string) map[string]any {
		return map[string]any{"summary": summary, "responses": map[string]any{"200": map[string]any{"description": "OK"}}}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": h.meta.Name + " (OpenEnv protocol)", "version": openapiVersion, "description": h.meta.Description},
		"paths": map[string]any{
			"/ws":       map[string]any{"get": op("a session: reset, step, state, close and mcp frames (WebSocket)")},
			"/health":   map[string]any{"get": op("health")},
			"/schema":   map[string]any{"get": op("the action, observation and state schemas")},
			"/metadata": map[string]any{"get": op("name, description, version")},
			"/mcp":      map[string]any{"post": op("JSON-RPC 2.0: tools/list, tools/call")},
			"/reset":    map[string]any{"post": op("stateless reset: an episode opened, its first observation, closed")},
			"/step":     map[string]any{"post": op("stateless step: no episode (episodes live on /ws)")},
			"/state":    map[string]any{"get": op("stateless state: no episode")},
		},
	})
}

func (h *Handler) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.meta)
}

// schema describes the action, observation and state of a step, as JSON
// schemas.
func (h *Handler) schema(w http.ResponseWriter, _ *http.Request) {
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	str, integer := map[string]any{"type": "string"}, map[string]any{"type": "integer"}
	writeJSON(w, http.StatusOK, map[string]any{
		"action": map[string]any{"oneOf": []any{
			obj(map[string]any{"name": str, "arguments": map[string]any{"type": "object"}}, "name"),
			obj(map[string]any{"type": map[string]any{"const": "call_tool"}, "tool_name": str, "arguments": map[string]any{"type": "object"}}, "type", "tool_name"),
			obj(map[string]any{"type": map[string]any{"const": "list_tools"}}, "type"),
		}},
		"observation": obj(map[string]any{"tool_name": str, "result": str, "error": map[string]any{"type": []string{"object", "null"}}}),
		"state":       obj(map[string]any{"episode_id": map[string]any{"type": []string{"string", "null"}}, "step_count": integer, "task": str, "k": integer, "t": integer, "done": map[string]any{"type": "boolean"}}, "episode_id", "step_count"),
	})
}

// statelessReset starts an episode, answers its first observation and
// closes it: the stateless route `openenv validate` checks. Episodes
// live on /ws.
func (h *Handler) statelessReset(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorFrame(Errorf(CodeValidation, "body: %v", err)).Data)
		return
	}
	d, e := parseReset(raw)
	if e != nil {
		writeJSON(w, http.StatusBadRequest, errorFrame(e).Data)
		return
	}
	ep, obs, err := h.be.Reset(r.Context(), d)
	if err != nil {
		e := asError(err)
		status := http.StatusInternalServerError
		if e.Code == CodeValidation {
			status = http.StatusBadRequest
		} else if e.Code == CodeCapacity {
			status = http.StatusServiceUnavailable
		}
		writeJSON(w, status, errorFrame(e).Data)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.be.Close(ctx, ep.ID); err != nil {
		h.log.Warn("openenv: close a stateless reset's episode", "episode", ep.ID, "err", err)
	}
	writeJSON(w, http.StatusOK, observation{Observation: obs})
}

// statelessStep has no episode to step: rbx's episodes hold a sandbox,
// which lives as long as a /ws session.
func (h *Handler) statelessStep(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, observation{Observation: map[string]any{"error": ExecutionError(
		"a stateless step has no episode: rbx's episodes live on /ws (reset, then step)")}, Done: true})
}

// statelessState: no episode outside a session.
func (h *Handler) statelessState(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"episode_id": nil, "step_count": 0})
}
