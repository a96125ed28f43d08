package tbench

import "strings"

// segment is one simple command (or pipeline) of a shell line, with the
// operator that follows it (&&, ||, ; or "" at the end).
type segment struct {
	text, sep string
	offset    int // of text in the line
}

// segments splits a RUN instruction's shell text at top-level &&, || and
// ;, outside quotes and $( ) (newlines are joined continuation lines). Joining each text and sep gives
// the input back, so replacing one segment leaves the others as written.
func segments(s string) []segment {
	var out []segment
	start, depth := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\\':
			i++
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		case c == '(':
			depth++
			continue
		case c == ')':
			depth--
			continue
		}
		if depth > 0 {
			continue
		}
		sep := ""
		switch {
		case strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			sep = s[i : i+2]
		case c == ';':
			sep = s[i : i+1]
		}
		if sep != "" {
			out = append(out, segment{text: s[start:i], sep: sep, offset: start})
			i += len(sep) - 1
			start = i + 1
		}
	}
	return append(out, segment{text: s[start:], offset: start})
}

func joinSegments(ss []segment) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.text)
		b.WriteString(s.sep)
	}
	return b.String()
}

// words splits a simple command into words, quotes removed (enough for
// reading package names and flags; substitutions stay as written).
func words(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
