package tbench

import "strings"

var closers = map[string]string{"fi": "if", "done": "do", "esac": "case", "}": "{"}

// word reads one word; at a command's start a reserved word opens or
// closes a block.
func (p *splitter) word() error {
	p.mark()
	start := p.i
	if err := p.wordChars(); err != nil {
		return err
	}
	w := p.s[start:p.i]
	p.cont = false
	if p.afterFunc { // function NAME: the body's { follows
		p.afterFunc, p.cmdStart = false, true
		return nil
	}
	if !p.cmdStart {
		return nil
	}
	switch w {
	case "if", "while", "until", "{":
		kind := w
		if w == "while" || w == "until" {
			kind = "do"
		}
		p.push(kind)
		p.cmdStart = true
	case "for", "select":
		p.push("do")
		p.cmdStart = false
	case "case":
		p.push("case")
		p.cmdStart = false
	case "then", "do", "else", "elif", "!", "time":
		p.cmdStart = true
	case "function":
		p.afterFunc = true
	case "fi", "done", "esac", "}":
		if n := len(p.stack); n > 0 && p.stack[n-1] == closers[w] {
			p.pop()
		}
		p.cmdStart = false
	default:
		p.cmdStart = strings.HasSuffix(w, "=") || isAssignment(w)
	}
	return nil
}

// isAssignment reports NAME=value, after which a command may still follow.
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := w[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// wordChars advances over one word, quotes and substitutions included.
func (p *splitter) wordChars() error {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case strings.IndexByte(" \t\r\n;&|()<>", c) >= 0:
			return nil
		case c == '\'':
			if err := p.single(); err != nil {
				return err
			}
		case c == '"':
			if err := p.double(); err != nil {
				return err
			}
		case c == '`':
			if err := p.backtick(); err != nil {
				return err
			}
		case c == '\\':
			p.escape()
		case c == '$' && (p.peek(1) == '(' || p.peek(1) == '{'):
			if err := p.dollar(); err != nil {
				return err
			}
		default:
			p.i++
		}
	}
	return nil
}

func (p *splitter) escape() {
	if p.peek(1) == '\n' {
		p.line++
	}
	p.i += 2
	if p.i > len(p.s) {
		p.i = len(p.s)
	}
}

func (p *splitter) single() error {
	line := p.line
	for p.i++; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '\'':
			p.i++
			return nil
		case '\n':
			p.line++
		}
	}
	return p.unterminated("single quote", line)
}

func (p *splitter) double() error {
	line := p.line
	p.i++
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			p.escape()
		case c == '`':
			if err := p.backtick(); err != nil {
				return err
			}
		case c == '$' && (p.peek(1) == '(' || p.peek(1) == '{'):
			if err := p.dollar(); err != nil {
				return err
			}
		default:
			if c == '\n' {
				p.line++
			}
			p.i++
		}
	}
	return p.unterminated("double quote", line)
}

func (p *splitter) backtick() error {
	line := p.line
	for p.i++; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case '`':
			p.i++
			return nil
		case '\n':
			p.line++
		}
	}
	return p.unterminated("backquote", line)
}

// dollar skips $( … ), $(( … )) or ${ … }, nested quotes included.
func (p *splitter) dollar() error {
	line := p.line
	open := p.s[p.i+1]
	closeCh := map[byte]byte{'(': ')', '{': '}'}[open]
	p.i += 2
	depth := 1
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == open:
			depth++
			p.i++
		case c == closeCh:
			depth--
			p.i++
			if depth == 0 {
				return nil
			}
		case c == '\'' && open == '(':
			if err := p.single(); err != nil {
				return err
			}
		case c == '"':
			if err := p.double(); err != nil {
				return err
			}
		case c == '`':
			if err := p.backtick(); err != nil {
				return err
			}
		case c == '\\':
			p.escape()
		case c == '$' && (p.peek(1) == '(' || p.peek(1) == '{'):
			if err := p.dollar(); err != nil {
				return err
			}
		default:
			if c == '\n' {
				p.line++
			}
			p.i++
		}
	}
	return p.unterminated("$"+string(open), line)
}

func (p *splitter) unterminated(what string, line int) error {
	p.line = line
	return p.errorf("unterminated %s", what)
}
