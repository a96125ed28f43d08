package rock

import (
	"encoding/json"
	"net/http"
)

// ROCK's reply statuses.
const (
	statusSuccess = "Success"
	statusFailed  = "Failed"
)

// envelope is ROCK's reply (RockResponse): always HTTP 200, the outcome in
// Status. ROCK's SDK raises on any non-2xx before reading the body, so a
// business error is a 200 with "Failed", never a 4xx or 5xx.
type envelope struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
	Error   *string `json:"error"`
	Result  any     `json:"result"`
}

// failure is a Failed reply: Message is ROCK's summary ("run in session
// failed"; nil for the few endpoints that leave it out), Err the cause.
type failure struct {
	Message *string
	Err     string
	// Result is sent along (ROCK sends a result with some failures; the
	// SDK's read_file reads result["content"] without checking status).
	Result any
}

func (f *failure) Error() string { return f.Err }

// failed makes a failure with ROCK's summary msg ("" for none).
func failed(msg, err string) *failure {
	f := &failure{Err: err}
	if msg != "" {
		f.Message = &msg
	}
	return f
}

// invalid is ROCK's answer to a request its models reject.
func invalid(err string) *failure { return failed("invalid parameter", err) }

func writeOK(w http.ResponseWriter, result any) {
	writeEnvelope(w, envelope{Status: statusSuccess, Result: result})
}

func writeFailure(w http.ResponseWriter, f *failure) {
	e := f.Err
	writeEnvelope(w, envelope{Status: statusFailed, Message: f.Message, Error: &e, Result: f.Result})
}

// WriteFailed answers a request the server refused before it reached the
// API (a missing token, a body over the limit) the way ROCK does: HTTP 200,
// status Failed, err as the error.
func WriteFailed(w http.ResponseWriter, message, err string) {
	writeFailure(w, failed(message, err))
}

func writeEnvelope(w http.ResponseWriter, e envelope) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e)
}
