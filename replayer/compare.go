package replayer

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Comparison is how recorded and live outputs are compared. Exit codes are
// always compared when recorded or pinned.
type Comparison string

// Comparisons.
const (
	// CompareExact requires byte-identical output.
	CompareExact Comparison = "exact"
	// CompareNormalized compares after Normalize: line endings, ANSI colour,
	// trailing blanks, timestamps and durations do not count. Hex strings
	// do: a wrong checksum or commit id is a divergence.
	CompareNormalized Comparison = "normalized"
	// CompareNormalizedHex compares after NormalizeHex: as CompareNormalized,
	// and every 12–64-character hex string is masked. Pinning sets it on the
	// steps whose hex values varied between verified runs; as a default it
	// is an explicit opt-in for recorded outputs that hold container ids.
	CompareNormalizedHex Comparison = "normalized_hex"
	// CompareIgnore compares no output.
	CompareIgnore Comparison = "ignore"
)

// Valid reports whether p is a known comparison.
func (p Comparison) Valid() bool {
	return p == CompareExact || p == CompareNormalized || p == CompareNormalizedHex || p == CompareIgnore
}

// Equal compares recorded and live output under p.
func Equal(p Comparison, recorded, live string) bool {
	switch p {
	case CompareIgnore:
		return true
	case CompareExact:
		return recorded == live
	case CompareNormalizedHex:
		return NormalizeHex(recorded) == NormalizeHex(live)
	}
	return Normalize(recorded) == Normalize(live)
}

// Canonical is out as p compares it: out itself for exact, its normalised
// form otherwise ("" for ignore).
func Canonical(p Comparison, out string) string {
	switch p {
	case CompareIgnore:
		return ""
	case CompareExact:
		return out
	case CompareNormalizedHex:
		return NormalizeHex(out)
	}
	return Normalize(out)
}

// Digest is the lowercase hex SHA-256 of out as p compares it: what a
// pinned observation's output_sha256 holds. It is "" for CompareIgnore.
func Digest(p Comparison, out string) string {
	if p == CompareIgnore {
		return ""
	}
	h := sha256.Sum256([]byte(Canonical(p, out)))
	return hex.EncodeToString(h[:])
}

var (
	ansiRE      = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)
	clockRE     = regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`)
	durationRE  = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds)\b`)
	hexRE       = regexp.MustCompile(`\b[0-9a-f]{12,64}\b`)
)

// Normalize rewrites output so that incidental differences vanish: CRLF,
// ANSI escapes, trailing whitespace and blank lines at the end, ISO
// timestamps, wall-clock times and durations ("0.003s") become
// placeholders. Hex strings are kept: they are usually checksums and commit
// ids whose value matters (NormalizeHex masks them).
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = ansiRE.ReplaceAllString(s, "")
	s = timestampRE.ReplaceAllString(s, "<time>")
	s = clockRE.ReplaceAllString(s, "<time>")
	s = durationRE.ReplaceAllString(s, "<duration>")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// NormalizeHex is Normalize with every 12–64-character lowercase hex string
// (container ids, hashes, commit ids) replaced by "<hex>".
func NormalizeHex(s string) string { return hexRE.ReplaceAllString(Normalize(s), "<hex>") }

// Summary is a one-line description of a step for reports.
func Summary(s trajectory.Step) string {
	switch s.Action {
	case trajectory.KindShell:
		return "shell " + oneLine(s.Command, 60)
	case trajectory.KindHTTP:
		return "http " + s.Method + " " + oneLine(s.URL, 60)
	case trajectory.KindNoop:
		return "noop " + oneLine(s.Note, 60)
	}
	return string(s.Action) + " " + s.Path
}

func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n]) + "…"
	}
	return s
}

// excerpt cuts s to at most n bytes on a rune boundary, keeping the end
// (where errors usually are) when it has to cut.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[len(s)-n:]
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[1:]
	}
	return "…" + cut
}

func quoteExcerpt(s string) string { return strconv.Quote(excerpt(s, 200)) }
