package capacity

import "errors"

// ErrFull is wrapped by Acquire when its context ended before the budget
// had room: the server answers it with 429 capacity and Retry-After.
var ErrFull = errors.New("sandbox budget exhausted")

// ErrClosed is returned by Acquire on a closed budget.
var ErrClosed = errors.New("sandbox budget closed")

// ErrTooLarge is returned for a request of more slots than the whole
// budget: it can never be served (rbx serve answers 400).
var ErrTooLarge = errors.New("more sandboxes than the budget")
