package trajectory

import (
	"fmt"
	"regexp"
	"strings"
)

// Scopes of template references.
const (
	ScopeVars     = "vars"
	ScopeServices = "services"
)

// Ref is one {{vars.NAME}} or {{services.NAME}} reference in a string.
// Only text opening with "{{", optional blanks and "vars." or "services."
// is a reference; any other "{{" is ordinary text (shell commands often
// contain Go or Jinja templates).
type Ref struct {
	// Scope is ScopeVars or ScopeServices.
	Scope string
	// Name is the variable or service name; empty when the reference is
	// malformed (bad name, or no closing "}}").
	Name string
	// Raw is the reference as written, such as "{{ vars.otp }}".
	Raw string
	// Offset is the byte offset of Raw in the string.
	Offset int
}

// Valid reports whether the reference is well formed.
func (r Ref) Valid() bool { return r.Name != "" }

var (
	varName     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	serviceName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
)

// References returns the references in s, in order, malformed ones included.
func References(s string) []Ref {
	var refs []Ref
	for off := 0; ; {
		i := strings.Index(s[off:], "{{")
		if i < 0 {
			return refs
		}
		start := off + i
		ref, end, ok := scanRef(s, start)
		off = end
		if ok {
			refs = append(refs, ref)
		}
	}
}

// scanRef reads the reference opening at s[start:] ("{{"), returning where
// scanning continues and whether it was a reference at all.
func scanRef(s string, start int) (Ref, int, bool) {
	p := skipBlanks(s, start+2)
	scope := ""
	for _, sc := range []string{ScopeVars, ScopeServices} {
		if strings.HasPrefix(s[p:], sc+".") {
			scope = sc
		}
	}
	if scope == "" {
		return Ref{}, start + 2, false
	}
	p += len(scope) + 1
	nameStart := p
	for p < len(s) && isNameByte(s[p]) {
		p++
	}
	name := s[nameStart:p]
	p = skipBlanks(s, p)
	ref := Ref{Scope: scope, Offset: start}
	if !strings.HasPrefix(s[p:], "}}") {
		// Malformed: show up to the next "}}" on the same line, if any.
		end := len(s)
		if j := strings.IndexAny(s[start:], "\n"); j >= 0 {
			end = start + j
		}
		if j := strings.Index(s[start:end], "}}"); j >= 0 {
			end = start + j + 2
		}
		ref.Raw = s[start:end]
		return ref, max(end, start+2), true
	}
	ref.Raw = s[start : p+2]
	if (scope == ScopeVars && varName.MatchString(name)) || (scope == ScopeServices && serviceName.MatchString(name)) {
		ref.Name = name
	}
	return ref, p + 2, true
}

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Expand replaces every reference in s by its value from vars or services.
// Values are inserted as they are, never expanded again. A reference to
// something missing returns an error wrapping ErrUndefined, a malformed
// one an error wrapping ErrMalformedRef; both name the reference.
func Expand(s string, vars, services map[string]string) (string, error) {
	refs := References(s)
	if len(refs) == 0 {
		return s, nil
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		if !r.Valid() {
			return "", fmt.Errorf("%w %q: expected {{vars.NAME}} or {{services.NAME}}", ErrMalformedRef, r.Raw)
		}
		table := vars
		if r.Scope == ScopeServices {
			table = services
		}
		v, ok := table[r.Name]
		if !ok {
			return "", fmt.Errorf("%w %s", ErrUndefined, r.Raw)
		}
		b.WriteString(s[last:r.Offset])
		b.WriteString(v)
		last = r.Offset + len(r.Raw)
	}
	b.WriteString(s[last:])
	return b.String(), nil
}
