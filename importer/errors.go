package importer

import "errors"

var (
	// ErrToolMap marks a malformed tool map (built in or --tools-map).
	ErrToolMap = errors.New("invalid tool map")
	// ErrFormat marks input that is not in the format it was imported as.
	ErrFormat = errors.New("unexpected input format")
	// ErrUnknownFormat is returned by Detect when no importer recognises the input.
	ErrUnknownFormat = errors.New("unrecognised trajectory format")
	// ErrUnfaithful marks an agent's action rbx has no faithful equivalent
	// for (an undo whose restored file the recording does not hold):
	// refused at import rather than replayed as something else.
	ErrUnfaithful = errors.New("no faithful equivalent")
	// ErrNoSteps marks input that holds no agent action at all.
	ErrNoSteps = errors.New("no steps")
)
