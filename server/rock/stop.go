package rock

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// stopBody is stop's request.
type stopBody struct {
	SandboxID string `json:"sandbox_id"`
}

// stopBox stops a sandbox and removes it. For an rbx:// episode that is
// still open the task's verifier runs first and the outcome is recorded
// (and reaches the curriculum when the episode feeds it): that is how an
// episode's result gets back to rbx with no change to ROLL. Stopping a
// stopped sandbox answers the same.
func (h *Handler) stopBox(r *http.Request) (any, *failure) {
	var body stopBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	if f := required("sandbox_id", body.SandboxID); f != nil {
		return nil, f
	}
	h.mu.Lock()
	b := h.boxes[body.SandboxID]
	h.mu.Unlock()
	if b == nil {
		return nil, failed("stop sandbox failed", fmt.Sprintf("sandbox %s not found", body.SandboxID))
	}
	if _, err := h.end(r.Context(), b, CloseVerify, "stop"); err != nil {
		return nil, failed("stop sandbox failed", err.Error())
	}
	return body.SandboxID + " stopped", nil
}

// getToken answers Failed: rbx has no object storage, and the SDK then
// uploads through /upload.
func (h *Handler) getToken(*http.Request) (any, *failure) {
	return nil, failed("get token failed", "rbx has no object storage (OSS): upload files through /upload")
}

// prefix returns, for a sandbox started from an rbx:// image, the
// reference prefix it was replayed through as OpenAI messages, with the
// episode's identity: what a trainer puts before the policy's turn.
func (h *Handler) prefix(r *http.Request) (any, *failure) {
	id := r.URL.Query().Get("sandbox_id")
	if f := required("sandbox_id", id); f != nil {
		return nil, f
	}
	h.mu.Lock()
	b := h.boxes[id]
	h.mu.Unlock()
	if b == nil {
		return nil, failed("", fmt.Sprintf("sandbox %s not found", id))
	}
	b.mu.Lock()
	lease := b.lease
	b.mu.Unlock()
	if lease == nil || b.req.Ref == nil {
		return nil, failed("", fmt.Sprintf("sandbox %s was not started from an rbx:// image (or is not running yet)", id))
	}
	msgs := json.RawMessage(lease.Prefix())
	if len(msgs) == 0 {
		msgs = json.RawMessage("[]")
	}
	return map[string]any{"sandbox_id": id, "metadata": lease.Metadata(), "messages": msgs}, nil
}
