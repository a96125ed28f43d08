package importer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parsePyLiteral parses a Python literal as repr() writes it — dicts,
// lists, tuples, strings, numbers, True/False/None — into JSON-like Go
// values. OpenHands keeps some edits only as Python source
// (translated_ipython_code: print(file_editor(**{...}))).
func parsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("python literal: unexpected %q at offset %d", p.s[p.i], p.i)
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

const maxPyDepth = 64

func (p *pyParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, fmt.Errorf("python literal: nested too deeply")
	}
	p.skip()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("python literal: unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[' || c == '(':
		return p.list(depth, map[byte]byte{'[': ']', '(': ')'}[c])
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c >= '0' && c <= '9':
		return p.number()
	}
	for word, v := range map[string]any{"True": true, "False": false, "None": nil} {
		if strings.HasPrefix(p.s[p.i:], word) {
			p.i += len(word)
			return v, nil
		}
	}
	return nil, fmt.Errorf("python literal: unexpected %q at offset %d", p.s[p.i], p.i)
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	out := map[string]any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			key = fmt.Sprint(k)
		}
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("python literal: expected ':' at offset %d", p.i)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[key] = v
		if err := p.sep('}'); err != nil {
			return nil, err
		}
	}
}

func (p *pyParser) list(depth int, end byte) (any, error) {
	p.i++
	out := []any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.sep(end); err != nil {
			return nil, err
		}
	}
}

// sep consumes a comma, or leaves the closing bracket for the caller.
func (p *pyParser) sep(end byte) error {
	p.skip()
	switch {
	case p.i < len(p.s) && p.s[p.i] == ',':
		p.i++
		return nil
	case p.i < len(p.s) && p.s[p.i] == end:
		return nil
	}
	return fmt.Errorf("python literal: expected ',' or %q at offset %d", end, p.i)
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_xXabcdefABCDEF", p.s[p.i]) >= 0 {
		p.i++
	}
	lit := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if n, err := strconv.ParseInt(lit, 0, 64); err == nil {
		return float64(n), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, fmt.Errorf("python literal: number %q: %w", lit, err)
	}
	return f, nil
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return sb.String(), nil
		case c == '\\':
			if err := p.escape(&sb); err != nil {
				return "", err
			}
		default:
			sb.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("python literal: unterminated string")
}

func (p *pyParser) escape(sb *strings.Builder) error {
	p.i++
	if p.i >= len(p.s) {
		return fmt.Errorf("python literal: unterminated escape")
	}
	c := p.s[p.i]
	p.i++
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00", '\n': ""}
	if r, ok := simple[c]; ok {
		sb.WriteString(r)
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 || p.i+width > len(p.s) {
		sb.WriteByte('\\')
		sb.WriteByte(c)
		return nil
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return fmt.Errorf("python literal: bad escape \\%c%s", c, p.s[p.i:p.i+width])
	}
	p.i += width
	sb.WriteRune(rune(n))
	return nil
}
