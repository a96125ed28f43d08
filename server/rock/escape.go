package rock

import (
	"bytes"
	"regexp"
	"strings"
)

// chunkMax bounds the escaped text of one line typed into a session: a
// terminal in canonical mode keeps at most 4095 bytes of a line and drops
// the rest, so a long command is typed as several assignments.
const chunkMax = 2048

// assignLines returns lines that, typed into bash, set the shell variable
// name to s byte for byte. Only printable ASCII other than ' and \ is
// typed as itself; every other byte is written as \xHH inside $'...', so
// no control character ever reaches the terminal's line discipline (a
// literal ^C or ^D in a command would otherwise signal or end the shell).
// NUL bytes cannot be held by a bash variable and are dropped.
func assignLines(name, s string) []string {
	var lines []string
	var b strings.Builder
	flush := func() {
		op := "+="
		if len(lines) == 0 {
			op = "="
		}
		lines = append(lines, name+op+"$'"+b.String()+"'")
		b.Reset()
	}
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			continue
		case c >= 0x20 && c < 0x7f && c != '\'' && c != '\\':
			b.WriteByte(c)
		default:
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
		if b.Len() >= chunkMax {
			flush()
		}
	}
	if b.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// ansiEscape matches ANSI escape sequences (ECMA-48 CSI and the two-byte
// escapes), which a terminal program writes for colours and cursor moves.
var ansiEscape = regexp.MustCompile(`\x1b[@-_][0-?]*[ -/]*[@-~]`)

// cleanOutput turns what a terminal showed into what ROCK returns: escape
// sequences stripped, the terminal's CRLF line ends back to LF, and
// surrounding white space trimmed.
func cleanOutput(b []byte) string {
	b = ansiEscape.ReplaceAll(b, nil)
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return strings.TrimSpace(backslashReplace(b))
}
