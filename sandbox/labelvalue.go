package sandbox

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Label values must be legal on every backend, and Kubernetes is the
// strictest: at most 63 characters of [A-Za-z0-9._-], starting and ending
// with a letter or digit (or empty). Keys are an optional DNS-subdomain
// prefix and "/" followed by a name of the same form (non-empty). Anything
// else (paths, free text) belongs in Spec.Annotations.
const maxLabelValue = 63

// ValidLabelValue reports whether v is a label value every backend accepts.
func ValidLabelValue(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > maxLabelValue || !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// ValidLabelKey reports whether k is a label (or annotation) key every
// backend accepts, such as "rbx.task" or "example.com/role".
func ValidLabelKey(k string) bool {
	name := k
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if prefix == "" || len(prefix) > 253 || strings.ToLower(prefix) != prefix || !ValidLabelValue(prefix) {
			return false
		}
	}
	return name != "" && ValidLabelValue(name)
}

// LabelValue returns s when it is a legal label value, else a legal value
// derived from it: illegal characters replaced by '-', cut to fit, and a
// hash of s appended so that distinct inputs stay distinct. It is
// deterministic, so a selector built with it finds what a spec labelled
// with it. Keep the original in an annotation when it must be read back.
func LabelValue(s string) string {
	if ValidLabelValue(s) {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	sum := fmt.Sprintf("%08x", h.Sum32())
	b := []byte(s)
	for i, c := range b {
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			b[i] = '-'
		}
	}
	head := strings.Trim(string(b), "-_.")
	if n := maxLabelValue - len(sum) - 1; len(head) > n {
		head = strings.TrimRight(head[:n], "-_.")
	}
	if head == "" {
		return sum
	}
	return head + "-" + sum
}

// validateLabels checks the keys and values of labels and the keys of
// annotations.
func validateLabels(labels, annotations map[string]string) error {
	for k, v := range labels {
		if !ValidLabelKey(k) {
			return fmt.Errorf("%w: label key %q: expected [prefix/]name of at most 63 of [A-Za-z0-9._-]", ErrInvalidSpec, k)
		}
		if !ValidLabelValue(v) {
			return fmt.Errorf("%w: label %s=%q: expected at most 63 of [A-Za-z0-9._-] starting and ending with a letter or digit; put other values in annotations", ErrInvalidSpec, k, v)
		}
	}
	for k := range annotations {
		if !ValidLabelKey(k) {
			return fmt.Errorf("%w: annotation key %q: expected [prefix/]name of at most 63 of [A-Za-z0-9._-]", ErrInvalidSpec, k)
		}
	}
	return nil
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
