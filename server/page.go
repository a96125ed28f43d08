package server

import (
	"encoding/base64"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// Listing bounds of GET /v1/tasks and GET /v1/curriculum.
const (
	defaultPageLimit = 100
	maxPageLimit     = 1000
)

// pageQuery is a task listing's parameters: limit, cursor (or after), phase
// and q (a substring of the id).
type pageQuery struct {
	limit int
	after string // the last id of the previous page ("": from the start)
	phase string
	q     string
}

func badParam(name, format string, a ...any) *APIError {
	return apiErr(http.StatusBadRequest, CodeBadRequest, name+" "+format, a...).With("parameter", name)
}

// parsePage reads and validates the listing parameters.
func parsePage(r *http.Request) (pageQuery, *APIError) {
	v := r.URL.Query()
	p := pageQuery{limit: defaultPageLimit, phase: v.Get("phase"), q: v.Get("q")}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPageLimit {
			return p, badParam("limit", "%q: expected 1 to %d", clip(s, 16), maxPageLimit)
		}
		p.limit = n
	}
	if p.phase != "" && !slices.Contains(curriculum.Phases, p.phase) {
		return p, badParam("phase", "%q: expected one of %s", clip(p.phase, 32), strings.Join(curriculum.Phases, ", ")).
			With("allowed", curriculum.Phases)
	}
	if len(p.q) > 128 {
		return p, badParam("q", "of %d bytes: expected at most 128", len(p.q))
	}
	cursor, after := v.Get("cursor"), v.Get("after")
	switch {
	case cursor != "" && after != "":
		return p, badParam("cursor", "and after: give one of them")
	case cursor != "":
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || !idPattern.Match(b) {
			return p, badParam("cursor", "%q: not a cursor this server handed out (next_cursor)", clip(cursor, 64))
		}
		p.after = string(b)
	case after != "":
		if !idPattern.MatchString(after) {
			return p, badParam("after", "%q: expected a task id", clip(after, 64))
		}
		p.after = after
	}
	return p, nil
}

// apply pages ids (sorted) through the filter: phaseOf is asked only when
// a phase is wanted or counted, once per id matching q.
func (p pageQuery) apply(ids []string, phaseOf func(id string) string) ([]string, Page) {
	pg := Page{Phases: map[string]int{}}
	start := sort.SearchStrings(ids, p.after)
	if start < len(ids) && ids[start] == p.after {
		start++
	}
	var out []string
	for i, id := range ids {
		if p.q != "" && !strings.Contains(id, p.q) {
			continue
		}
		ph := phaseOf(id)
		pg.Phases[ph]++
		if p.phase != "" && ph != p.phase {
			continue
		}
		pg.Total++
		if i < start {
			continue
		}
		if len(out) < p.limit {
			out = append(out, id)
		} else if pg.NextCursor == "" {
			pg.NextCursor = cursorAfter(out[len(out)-1])
		}
	}
	return out, pg
}

// cursorAfter is the opaque cursor of the page after id.
func cursorAfter(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }
