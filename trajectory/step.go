package trajectory

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

var (
	httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}
	compares    = []string{"exact", "normalized", "normalized_hex", "ignore"}
	sha256Hex   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// stepValidator checks one step; present holds the members it has.
type stepValidator struct {
	r       *source.Reporter
	s       *Step
	path    string
	present map[string]bool
}

// output is the step's observation output, and whether it has one.
func (v *stepValidator) output() (string, bool) {
	if o := v.s.Observation; o != nil && o.Output != "" {
		return o.Output, true
	}
	return "", false
}

func (v *stepValidator) errorf(field, format string, args ...any) {
	v.r.Errorf(v.field(field), format, args...)
}

func (v *stepValidator) keyErrorf(field, format string, args ...any) {
	v.r.KeyErrorf(v.field(field), format, args...)
}

// field is the path of a member: relative to the step when the step is
// checked on its own.
func (v *stepValidator) field(name string) string {
	if v.path == "" {
		return name
	}
	return v.path + "." + name
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func (v *stepValidator) validate(defined map[string]bool) {
	s := v.s
	switch {
	case s.Action == "":
		v.errorf("action", "required: one of %s", kindList())
	case !s.Action.Valid():
		v.errorf("action", "%q: expected one of %s", s.Action, kindList())
	default:
		v.checkMembers()
		v.checkKind()
	}
	if s.Compare != "" && !slices.Contains(compares, s.Compare) {
		v.errorf("compare", "%q: expected one of %s", s.Compare, strings.Join(compares, ", "))
	}
	if s.Tokens < 0 {
		v.errorf("tokens", "%d: expected a non-negative count", s.Tokens)
	}
	if s.Timeout < 0 {
		v.errorf("timeout", "expected a non-negative duration")
	}
	if o := s.Observation; o != nil && o.Status != 0 && (o.Status < 100 || o.Status > 599) {
		v.errorf("observation.status", "%d: expected an HTTP status between 100 and 599", o.Status)
	}
	if o := s.Observation; o != nil && o.OutputSHA256 != "" && !sha256Hex.MatchString(o.OutputSHA256) {
		v.errorf("observation.output_sha256", "%q: expected 64 lowercase hex digits (a SHA-256)", o.OutputSHA256)
	}
	for i, m := range s.Messages {
		field := source.Index(v.field("messages"), i)
		output, has := v.output()
		out, ok, err := expandMessage(m, output, has)
		switch {
		case err != nil:
			v.r.Errorf(field, "%v", err)
		case !ok:
			v.r.Errorf(field+"."+ContentFrom, "expected %q, with the step's observation.output present", FromObservation)
		default:
			s.Messages[i] = out // a shared output put back (see ContentFrom)
		}
		checkMessage(v.r, field, out)
	}
	v.checkRefs(defined)
}

// checkMembers rejects members that do not belong to the step's kind.
func (v *stepValidator) checkMembers() {
	allowed := v.s.Action.Fields()
	own := v.s.Action.ArgNames()
	for _, name := range sortedKeys(v.present) {
		if !slices.Contains(allowed, name) {
			list := "nothing else"
			if len(own) > 0 {
				list = strings.Join(own, ", ")
			}
			v.keyErrorf(name, "field %q does not belong to action %q (it takes %s)", name, v.s.Action, list)
		}
	}
}

func (v *stepValidator) checkKind() {
	s := v.s
	switch s.Action {
	case KindShell:
		if strings.TrimSpace(s.Command) == "" {
			v.errorf("command", "required for action %q: the shell command to run", s.Action)
		}
		for _, k := range sortedKeys(s.Env) {
			if !varName.MatchString(k) {
				v.keyErrorf(source.Key("env", k), "%q: expected a shell variable name (letters, digits and '_', not starting with a digit)", k)
			}
		}
	case KindWriteFile:
		v.requirePath()
		v.checkContent()
		if _, err := s.FileMode(); err != nil {
			v.errorf("mode", "%s", err)
		}
	case KindReadFile:
		v.requirePath()
		if rg := s.Range; rg != nil && (rg.Start < 1 || (rg.End != 0 && rg.End < rg.Start)) {
			v.errorf("range", "{start: %d, end: %d}: expected start ≥ 1 and end 0 (to the end) or ≥ start", rg.Start, rg.End)
		}
	case KindEditFile:
		v.requirePath()
		v.checkEdit()
	case KindHTTP:
		v.checkHTTP()
	case KindKeys:
		if s.Duration < 0 {
			v.errorf("duration", "expected a non-negative duration")
		}
	}
}

func (v *stepValidator) requirePath() {
	if strings.TrimSpace(v.s.Path) == "" {
		v.errorf("path", "required for action %q: the file's path (absolute, or relative to the workdir)", v.s.Action)
	}
}

func (v *stepValidator) checkContent() {
	hasText, hasB64 := v.present["content"], v.present["content_b64"]
	switch {
	case hasText && hasB64:
		v.errorf("content_b64", `expected exactly one of "content" and "content_b64", got both`)
	case !hasText && !hasB64:
		v.errorf("content", `required for action "write_file": "content" (text) or "content_b64" (base64)`)
	case hasB64:
		if _, err := base64.StdEncoding.DecodeString(v.s.ContentB64); err != nil {
			v.errorf("content_b64", "expected standard base64 (RFC 4648, with padding): %v", err)
		}
	}
}

func (v *stepValidator) checkEdit() {
	p := v.present
	if p["range"] {
		v.checkLinesEdit()
		return
	}
	replace := p["old"] || p["new"]
	insert := p["insert_line"] || p["text"]
	switch {
	case replace && insert:
		v.errorf("insert_line", `expected either "old" and "new" (replace) or "insert_line" and "text" (insert), not both`)
	case replace && !p["old"]:
		v.errorf("old", `required with "new": the exact text to replace`)
	case replace && !p["new"]:
		v.errorf("new", `required with "old": the replacement text (may be "")`)
	case replace && *v.s.Old == "":
		v.errorf("old", "expected non-empty text to replace")
	case insert && !p["insert_line"]:
		v.errorf("insert_line", `required with "text": the line after which to insert (0 for the top)`)
	case insert && !p["text"]:
		v.errorf("text", `required with "insert_line": the text to insert`)
	case insert && p["all"]:
		v.errorf("all", `only with "old" and "new": "all" replaces every occurrence of "old"`)
	case insert && *v.s.InsertLine < 0:
		v.errorf("insert_line", "%d: expected a line number ≥ 0 (0 inserts at the top)", *v.s.InsertLine)
	case !replace && !insert:
		v.errorf("old", `required for action "edit_file": "old" and "new" (replace) or "insert_line" and "text" (insert)`)
	}
}

// checkLinesEdit checks the third form of edit_file: lines range.start
// to range.end replaced by text (SWE-agent's windowed "edit N:M").
func (v *stepValidator) checkLinesEdit() {
	p, rg := v.present, v.s.Range
	switch {
	case p["old"] || p["new"] || p["insert_line"] || p["all"]:
		v.errorf("range", `expected "range" and "text" (replace lines) alone, without "old", "new", "insert_line" or "all"`)
	case !p["text"]:
		v.errorf("text", `required with "range": the lines that replace range (may be "")`)
	case rg == nil || rg.Start < 1 || rg.End < rg.Start:
		start, end := 0, 0
		if rg != nil {
			start, end = rg.Start, rg.End
		}
		v.errorf("range", "{start: %d, end: %d}: expected 1 ≤ start ≤ end, the lines to replace", start, end)
	}
}

func (v *stepValidator) checkHTTP() {
	s := v.s
	switch {
	case s.Method == "":
		v.errorf("method", "required for action \"http\": one of %s", strings.Join(httpMethods, ", "))
	case !slices.Contains(httpMethods, s.Method):
		v.errorf("method", "%q: expected one of %s", s.Method, strings.Join(httpMethods, ", "))
	}
	switch u, err := url.Parse(s.URL); {
	case strings.TrimSpace(s.URL) == "":
		v.errorf("url", `required for action "http": a URL such as "{{services.api}}/v1/items"`)
	case len(References(s.URL)) > 0:
		// Checked after expansion, by the replayer.
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.errorf("url", `%q: expected an absolute http(s) URL, usually starting with {{services.NAME}}`, s.URL)
	}
	for _, k := range sortedKeys(s.Headers) {
		if !validHeaderName(k) {
			v.keyErrorf(source.Key("headers", k), "%q: expected an HTTP header name", k)
		}
	}
	for _, k := range sortedKeys(s.Capture) {
		f := source.Key("capture", k)
		if !varName.MatchString(k) {
			v.keyErrorf(f, "%q: expected a variable name (letters, digits and '_', not starting with a digit)", k)
		}
		if p := s.Capture[k]; p == "" || slices.Contains(strings.Split(p, "."), "") {
			v.errorf(f, "%q: expected a dotted path into the JSON response such as \"data.code\" or \"items.0.id\"", p)
		}
	}
}

func validHeaderName(k string) bool {
	return k != "" && strings.IndexFunc(k, func(r rune) bool {
		return r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) < 0
}

// checkRefs reports malformed references and variables not defined before
// this step (a step cannot use what it captures itself); with defined nil,
// only malformed references.
func (v *stepValidator) checkRefs(defined map[string]bool) {
	_ = v.s.templated(func(field, val string) (string, error) {
		for _, ref := range References(val) {
			switch {
			case !ref.Valid():
				v.errorf(field, "malformed reference %q: expected {{vars.NAME}} or {{services.NAME}}", ref.Raw)
			case ref.Scope == ScopeVars && defined != nil && !defined[ref.Name]:
				v.errorf(field, `%s is not defined before this step (set it in "vars" or capture it in an earlier http step)`, ref.Raw)
			}
		}
		return val, nil
	})
}

// checkMessage accepts a chat message: a JSON object with a "role" string.
func checkMessage(r *source.Reporter, field string, raw json.RawMessage) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		r.Errorf(field, `expected a chat message object such as {"role": "assistant", "content": "..."}`)
		return
	}
	var role string
	if err := json.Unmarshal(m["role"], &role); err != nil || role == "" {
		r.Errorf(field, `expected a "role" string such as "user", "assistant" or "tool"`)
	}
}
