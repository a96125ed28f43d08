package openenv

import (
	"errors"
	"fmt"
)

// Error codes of the protocol's error frames. The first four keep the
// session open; the others are sent once, then the socket is closed.
const (
	CodeInvalidJSON     = "INVALID_JSON"
	CodeUnknownType     = "UNKNOWN_TYPE"
	CodeValidation      = "VALIDATION_ERROR"
	CodeExecution       = "EXECUTION_ERROR"
	CodeCapacity        = "CAPACITY_REACHED"
	CodeFactory         = "FACTORY_ERROR"
	CodeSession         = "SESSION_ERROR"
	errorTypeNotFound   = "tool_not_found"
	errorTypeInvalid    = "invalid_args"
	errorTypeExecution  = "execution_error"
	jsonrpcInvalidReq   = -32600
	jsonrpcNoMethod     = -32601
	jsonrpcInvalidParam = -32602
	jsonrpcInternal     = -32603
)

// Error is a failure a Backend reports with its protocol code (a plain
// error is an EXECUTION_ERROR).
type Error struct {
	Code    string
	Message string
	// Data adds fields to the error frame's data (CAPACITY_REACHED's
	// active_sessions and max_sessions).
	Data map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// fatal reports whether code ends the session.
func fatal(code string) bool {
	return code == CodeCapacity || code == CodeFactory || code == CodeSession
}

// asError is err as a protocol error.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeExecution, Message: err.Error()}
}

// ToolError is a tool's failure, reported in the observation's "error".
type ToolError struct {
	Type    string `json:"error_type"`
	Message string `json:"message"`
}

// ToolNotFound and InvalidArgs build the two refusals a Backend's Step
// reports as tool errors.
func ToolNotFound(format string, args ...any) *ToolError {
	return &ToolError{Type: errorTypeNotFound, Message: fmt.Sprintf(format, args...)}
}

// ExecutionError: the call ran into a failure (the sandbox died).
func ExecutionError(format string, args ...any) *ToolError {
	return &ToolError{Type: errorTypeExecution, Message: fmt.Sprintf(format, args...)}
}

// InvalidArgs: the tool exists but its arguments are wrong.
func InvalidArgs(format string, args ...any) *ToolError {
	return &ToolError{Type: errorTypeInvalid, Message: fmt.Sprintf(format, args...)}
}
