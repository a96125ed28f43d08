package openenv

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// mcp is POST /mcp: JSON-RPC without a session (tools/list; a tool call
// needs the episode of a /ws session).
func (h *Handler) mcp(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{jsonrpcInvalidReq, "body: " + err.Error()}})
		return
	}
	writeJSON(w, http.StatusOK, h.rpc(r.Context(), raw, nil))
}

// rpc answers one JSON-RPC request; s is the /ws session it came on (nil
// over HTTP).
func (h *Handler) rpc(ctx context.Context, raw json.RawMessage, s *session) rpcResponse {
	var req rpcRequest
	resp := rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
	if err := json.Unmarshal(raw, &req); err != nil || req.JSONRPC != "2.0" || req.Method == "" {
		resp.Error = &rpcError{jsonrpcInvalidReq, `invalid request: expected {"jsonrpc": "2.0", "method", "params"?, "id"}`}
		return resp
	}
	if len(req.ID) > 0 {
		resp.ID = req.ID
	}
	switch req.Method {
	case "tools/list":
		resp.Result = map[string]any{"tools": mcpTools(h.be.Tools())}
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name == "" {
			resp.Error = &rpcError{jsonrpcInvalidParam, `tools/call: params: expected {"name", "arguments"}`}
			return resp
		}
		if s == nil {
			resp.Error = &rpcError{jsonrpcInvalidReq, "tools/call: no episode over HTTP: rbx's episodes live on /ws (reset, then step or mcp frames)"}
			return resp
		}
		res, err := s.call(ctx, ToolCall{Name: p.Name, Arguments: p.Arguments})
		if err != nil {
			resp.Error = &rpcError{jsonrpcInternal, asError(err).Message}
			return resp
		}
		text, _ := json.Marshal(res.Observation)
		resp.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}},
			"isError": res.Observation["error"] != nil, "reward": res.Reward, "done": res.Done}
	default:
		resp.Error = &rpcError{jsonrpcNoMethod, "method " + req.Method + ": expected tools/list or tools/call"}
	}
	return resp
}

// mcpTools lists tools as MCP does (inputSchema).
func mcpTools(tools []Tool) []map[string]any {
	out := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema})
	}
	return out
}
