package rock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// decodeBody reads a JSON body into v. Unknown keys are ignored, as
// ROCK's models ignore them; a body that is not JSON, or a field of the
// wrong type, is ROCK's "invalid parameter".
func decodeBody(r *http.Request, v any) *failure {
	err := json.NewDecoder(r.Body).Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return invalid("body: a JSON object is required")
	case errors.As(err, &tooLarge):
		return invalid(fmt.Sprintf("body: over %d bytes", tooLarge.Limit))
	case err != nil:
		return invalid("body: " + err.Error())
	}
	return nil
}

// idPattern is what a sandbox id chosen by the caller may look like.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// required checks that a required string field is present and not blank
// (ROCK's NonBlankStr).
func required(field, v string) *failure {
	if strings.TrimSpace(v) == "" {
		return invalid(field + ": field required and not blank")
	}
	return nil
}

// parseSize reads a docker-style size ("8g", "512m", "50G", "1024") in
// bytes; "" is 0 (the default).
func parseSize(field, s string) (int64, *failure) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, nil
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "b"), "i")
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k':
		mult = 1 << 10
	case 'm':
		mult = 1 << 20
	case 'g':
		mult = 1 << 30
	case 't':
		mult = 1 << 40
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, invalid(fmt.Sprintf("%s %q: expected a size such as 8g or 512m", field, s))
	}
	return int64(f * float64(mult)), nil
}

// validEnvName reports whether k can be exported by bash.
func validEnvName(k string) bool {
	if k == "" || unicode.IsDigit(rune(k[0])) {
		return false
	}
	for _, c := range k {
		if c != '_' && !(c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c))) {
			return false
		}
	}
	return true
}

// callerOf reads ROCK's identity headers.
func callerOf(r *http.Request) caller {
	return caller{UserID: r.Header.Get("X-User-Id"), ExperimentID: r.Header.Get("X-Experiment-Id"),
		Namespace: r.Header.Get("X-Namespace"), Cluster: r.Header.Get("X-Cluster")}
}

// box returns the running sandbox id names.
func (h *Handler) box(id string) (*box, *failure) {
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
	state, stopping, lease := b.state, b.stopping, b.lease
	b.mu.Unlock()
	switch {
	case state == stateStopped || stopping:
		return nil, failed("", fmt.Sprintf("sandbox %s is stopped", id))
	case lease != nil && lease.Gone() != nil:
		return nil, failed("", fmt.Sprintf("sandbox %s ended: %v", id, lease.Gone()))
	case state != stateRunning:
		return nil, failed("", fmt.Sprintf("sandbox %s is not running yet (state %s): poll get_status until is_alive", id, state))
	}
	b.touch()
	return b, nil
}
