package source

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// ParseError is one problem in a task or trajectory document: where it is
// and what was expected. Line and Column are 1-based; 0 means unknown.
type ParseError struct {
	// File is the document's path or name as given by the caller.
	File string
	// Line and Column locate the offending value (or the enclosing object
	// when a required field is missing).
	Line, Column int
	// Field is the path of the offending field, such as "steps[3].command".
	Field string
	// Msg says what is wrong and what was expected.
	Msg string
}

// Error formats the problem as "file:line:col: field: msg", leaving out
// the parts that are unknown.
func (e *ParseError) Error() string {
	var b []byte
	if e.File != "" {
		b = append(b, e.File...)
		if e.Line > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(e.Line), 10)
			if e.Column > 0 {
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(e.Column), 10)
			}
		}
		b = append(b, ": "...)
	} else if e.Line > 0 {
		b = fmt.Appendf(b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b = append(b, e.Field...)
		b = append(b, ": "...)
	}
	b = append(b, e.Msg...)
	return string(b)
}

// maxErrors bounds how many problems one document reports, so a badly
// broken file does not drown the first, most useful ones.
const maxErrors = 50

// Reporter collects the problems of one document, locating each field path
// in the document's tree when there is one.
type Reporter struct {
	file string
	root *Node
	errs []*ParseError
}

// NewReporter returns a Reporter for file; root may be nil for values built
// in code, whose errors then carry no line.
func NewReporter(file string, root *Node) *Reporter {
	return &Reporter{file: file, root: root}
}

// Errorf records a problem with field.
func (r *Reporter) Errorf(field, format string, args ...any) {
	pos := r.root.Locate(field)
	r.Add(&ParseError{File: r.file, Line: pos.Line, Column: pos.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// KeyErrorf records a problem with the member name at the end of field
// (a bad map key), located at the name rather than its value.
func (r *Reporter) KeyErrorf(field, format string, args ...any) {
	pos := r.root.LocateKey(field)
	r.Add(&ParseError{File: r.file, Line: pos.Line, Column: pos.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Add records a problem that is already located.
func (r *Reporter) Add(e *ParseError) {
	if len(r.errs) < maxErrors {
		r.errs = append(r.errs, e)
	}
}

// Len is the number of problems recorded.
func (r *Reporter) Len() int { return len(r.errs) }

// Err returns nil, the single *ParseError, or every problem joined in
// document order (problems without a line last).
func (r *Reporter) Err() error {
	switch len(r.errs) {
	case 0:
		return nil
	case 1:
		return r.errs[0]
	}
	errs := slices.Clone(r.errs)
	slices.SortStableFunc(errs, func(a, b *ParseError) int {
		if (a.Line == 0) != (b.Line == 0) {
			if a.Line == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}
