package tbench

import (
	"errors"
	"fmt"
	"strings"
)

// Command is one top-level command of a shell script.
type Command struct {
	// Text is the command's source, heredoc bodies included.
	Text string
	// Line is its first line in the script (1-based).
	Line int
}

// ErrShellSyntax marks a script the splitter cannot split: an unterminated
// quote, heredoc, substitution or block.
var ErrShellSyntax = errors.New("shell syntax")

// SplitScript splits a shell script into its top-level commands, so each
// becomes one replayable step. Kept whole: heredocs, line continuations,
// commands continued after &&, || or |, if/for/while/until/case/select
// blocks, { } groups, ( ) subshells and function definitions. Comment-only
// lines and the shebang are dropped.
func SplitScript(script string) ([]Command, error) {
	sp := &splitter{s: script, line: 1, start: -1, cmdStart: true}
	if err := sp.run(); err != nil {
		return nil, err
	}
	return sp.out, nil
}

type heredoc struct {
	delim string
	strip bool // <<- strips leading tabs
}

type splitter struct {
	s         string
	i, line   int
	stack     []string
	blockLine []int
	pending   []heredoc
	cmdStart  bool
	afterFunc bool
	cont      bool
	start     int
	startLine int
	out       []Command
}

func (p *splitter) errorf(format string, a ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrShellSyntax, p.line, fmt.Sprintf(format, a...))
}

func (p *splitter) mark() {
	if p.start < 0 {
		p.start, p.startLine = p.i, p.line
	}
}

func (p *splitter) emit(end int) {
	if p.start >= 0 {
		if t := strings.TrimSpace(p.s[p.start:end]); t != "" {
			p.out = append(p.out, Command{Text: t, Line: p.startLine})
		}
	}
	p.start = -1
}

func (p *splitter) peek(k int) byte {
	if p.i+k < len(p.s) {
		return p.s[p.i+k]
	}
	return 0
}

func (p *splitter) run() error {
	for p.i < len(p.s) {
		if err := p.token(); err != nil {
			return err
		}
	}
	if len(p.pending) > 0 {
		return p.errorf("heredoc %q is not terminated", p.pending[0].delim)
	}
	if n := len(p.stack); n > 0 {
		return fmt.Errorf("%w: %q block opened on line %d is not closed", ErrShellSyntax, p.stack[n-1], p.blockLine[n-1])
	}
	p.emit(len(p.s))
	return nil
}

func (p *splitter) token() error {
	c := p.s[p.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		p.i++
	case c == '\n':
		return p.newline()
	case c == '#':
		for p.i < len(p.s) && p.s[p.i] != '\n' {
			p.i++
		}
	case c == ';':
		p.cont = false
		if p.peek(1) == ';' || p.peek(1) == '&' { // case item ends ;; ;&
			p.i += 2
		} else {
			if len(p.stack) == 0 {
				p.emit(p.i)
			}
			p.i++
		}
		p.cmdStart = true
	case c == '&' || c == '|':
		return p.operator(c)
	case c == '(':
		p.mark()
		p.push("(")
		p.i++
		p.cmdStart, p.cont = true, false
	case c == ')':
		if n := len(p.stack); n > 0 && p.stack[n-1] == "(" {
			p.pop()
		}
		p.i++
		p.cmdStart = true
	case c == '<' || c == '>':
		p.mark()
		return p.redirect()
	default:
		return p.word()
	}
	return nil
}

func (p *splitter) operator(c byte) error {
	p.mark()
	if p.peek(1) == c || (c == '|' && p.peek(1) == '&') { // && || |&
		p.i += 2
		p.cont, p.cmdStart = true, true
		return nil
	}
	p.i++
	if c == '|' {
		p.cont, p.cmdStart = true, true
		return nil
	}
	if len(p.stack) == 0 { // a background job ends its command, & included
		p.emit(p.i)
	}
	p.cmdStart, p.cont = true, false
	return nil
}

func (p *splitter) newline() error {
	if len(p.pending) > 0 {
		if err := p.heredocBodies(); err != nil {
			return err
		}
		if p.i >= len(p.s) {
			return nil
		}
	}
	if len(p.stack) == 0 && !p.cont {
		p.emit(p.i)
	}
	p.i++
	p.line++
	p.cmdStart = true
	return nil
}

// heredocBodies consumes the bodies of the pending heredocs; p.i is at the
// newline that ends the line holding the << operators.
func (p *splitter) heredocBodies() error {
	for _, h := range p.pending {
		for {
			if p.i >= len(p.s) {
				return fmt.Errorf("%w: heredoc %q is not terminated", ErrShellSyntax, h.delim)
			}
			p.i++ // past the newline
			p.line++
			end := strings.IndexByte(p.s[p.i:], '\n')
			if end < 0 {
				end = len(p.s) - p.i
			}
			l := strings.TrimSuffix(p.s[p.i:p.i+end], "\r")
			if h.strip {
				l = strings.TrimLeft(l, "\t")
			}
			p.i += end
			if l == h.delim {
				break
			}
		}
	}
	p.pending = nil
	return nil
}

func (p *splitter) redirect() error {
	if p.s[p.i] == '<' && p.peek(1) == '<' && p.peek(2) != '<' {
		p.i += 2
		h := heredoc{}
		if p.peek(0) == '-' {
			h.strip = true
			p.i++
		}
		for p.peek(0) == ' ' || p.peek(0) == '\t' {
			p.i++
		}
		start := p.i
		if err := p.wordChars(); err != nil {
			return err
		}
		h.delim = strings.NewReplacer("'", "", `"`, "", `\`, "").Replace(p.s[start:p.i])
		if h.delim == "" {
			return p.errorf("heredoc without a delimiter")
		}
		p.pending = append(p.pending, h)
		p.cmdStart, p.cont = false, false
		return nil
	}
	p.i++
	for strings.IndexByte("<>&|", p.peek(0)) >= 0 && p.peek(0) != 0 {
		p.i++
	}
	p.cmdStart, p.cont = false, false
	return nil
}

func (p *splitter) push(kind string) {
	p.stack = append(p.stack, kind)
	p.blockLine = append(p.blockLine, p.line)
}

func (p *splitter) pop() {
	p.stack = p.stack[:len(p.stack)-1]
	p.blockLine = p.blockLine[:len(p.blockLine)-1]
}
