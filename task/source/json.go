package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ParseJSON reads one JSON document. Syntax errors are *ParseError with the
// line and column of the offending character.
func ParseJSON(file string, data []byte) (*Node, error) {
	return parseJSON(file, data, 0)
}

// ParseJSONLine reads line number line (1-based) of a JSONL file: positions
// are reported on that line.
func ParseJSONLine(file string, data []byte, line int) (*Node, error) {
	return parseJSON(file, data, line-1)
}

func parseJSON(file string, data []byte, lineOffset int) (*Node, error) {
	// Editors on some systems start files with a UTF-8 byte order mark,
	// which encoding/json rejects.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// encoding/json finds syntax errors with their byte offset; the token
	// walk below then only has to record positions.
	if err := checkJSON(file, data, lineOffset); err != nil {
		return nil, err
	}
	p := &jsonWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), pos: newTracker(data, lineOffset)}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		return nil, &ParseError{File: file, Msg: "invalid JSON: " + err.Error()}
	}
	return n, nil
}

// offsetPos turns a byte offset into a 1-based line and a column counted
// in characters.
func offsetPos(data []byte, off, lineOffset int) Pos {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return Pos{Line: line + lineOffset, Column: utf8.RuneCount(before[start:]) + 1}
}

type jsonWalker struct {
	data []byte
	dec  *json.Decoder
	pos  *tracker
}

// tracker turns increasing byte offsets into positions in time linear in
// the document, where offsetPos would be quadratic on large files.
type tracker struct {
	data      []byte
	off       int
	line, col int
}

func newTracker(data []byte, lineOffset int) *tracker {
	return &tracker{data: data, line: 1 + lineOffset, col: 1}
}

func (t *tracker) at(off int) Pos {
	off = min(max(off, t.off), len(t.data))
	for _, r := range string(t.data[t.off:off]) {
		if r == '\n' {
			t.line, t.col = t.line+1, 1
		} else {
			t.col++
		}
	}
	t.off = off
	return Pos{Line: t.line, Column: t.col}
}

// next returns the next token and the position where it starts: the
// decoder's offset sits before any separator and white space.
func (p *jsonWalker) next() (json.Token, Pos, error) {
	off := int(p.dec.InputOffset())
	for off < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	tok, err := p.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, p.pos.at(off), err
}

func (p *jsonWalker) value() (*Node, error) {
	tok, pos, err := p.next()
	if err != nil {
		return nil, err
	}
	n := &Node{Pos: pos}
	switch t := tok.(type) {
	case nil:
		n.Kind = Null
	case bool:
		n.Kind, n.Bool = Bool, t
	case json.Number:
		n.Kind, n.Num = Number, t.String()
	case string:
		n.Kind, n.Str = String, t
	case json.Delim:
		return n, p.container(n, t)
	default:
		return nil, fmt.Errorf("unexpected token %v", tok)
	}
	return n, nil
}

func (p *jsonWalker) container(n *Node, open json.Delim) error {
	n.Kind = Array
	if open == '{' {
		n.Kind = Object
	}
	for p.dec.More() {
		if n.Kind == Array {
			it, err := p.value()
			if err != nil {
				return err
			}
			n.Items = append(n.Items, it)
			continue
		}
		tok, keyPos, err := p.next()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		v, err := p.value()
		if err != nil {
			return err
		}
		n.Fields = append(n.Fields, Field{Key: key, KeyPos: keyPos, Value: v})
	}
	_, _, err := p.next() // the closing delimiter
	return err
}

// CheckJSON reports whether data is one JSON document, as a *ParseError
// at the line and column of the first syntax error (an input that ends
// early: just past its last character) when it is not. It builds
// nothing: for large documents read by other decoders (the importers).
func CheckJSON(file string, data []byte) error {
	return checkJSON(file, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), 0)
}

func checkJSON(file string, data []byte, lineOffset int) error {
	if json.Valid(data) {
		return nil
	}
	var probe any
	err := json.Unmarshal(data, &probe)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	off := len(data)
	// The offset counts the offending character; at the end of the
	// input there is none, and the position is just past the last one.
	if errors.As(err, &syn) && !strings.Contains(syn.Error(), "unexpected end") {
		off = int(syn.Offset) - 1
	}
	pos := offsetPos(data, off, lineOffset)
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if len(bytes.TrimSpace(data)) == 0 {
		msg = "empty document: expected a JSON object"
	}
	return &ParseError{File: file, Line: pos.Line, Column: pos.Column, Msg: "invalid JSON: " + msg}
}

// JSONOffsetPos is the 1-based line and column of byte offset off in
// data (a json.UnmarshalTypeError's Offset, say).
func JSONOffsetPos(data []byte, off int) Pos { return offsetPos(data, off, 0) }
