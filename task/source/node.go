// Package source reads JSON and YAML documents into a tree that remembers
// where every value came from, and decodes that tree strictly into Go
// values, so that every problem is reported with its file, line, column and
// field path (see ParseError). The task and trajectory packages build on it.
package source

import (
	"encoding/json"
	"strconv"
)

// Kind is the JSON type of a Node.
type Kind int

// Node kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

// String names the kind as users know it from JSON.
func (k Kind) String() string {
	switch k {
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Object:
		return "an object"
	case Array:
		return "an array"
	}
	return "null"
}

// Pos is a 1-based line and column; the zero Pos is unknown.
type Pos struct {
	Line, Column int
}

// Node is one value of a document and where it starts.
type Node struct {
	Kind Kind
	Pos  Pos
	// Str is the value of a String.
	Str string
	// Num is the literal of a Number, in JSON syntax.
	Num string
	// Bool is the value of a Bool.
	Bool bool
	// Fields are the members of an Object, in document order; keys may repeat.
	Fields []Field
	// Items are the elements of an Array.
	Items []*Node
}

// Field is one member of an Object.
type Field struct {
	Key    string
	KeyPos Pos
	Value  *Node
}

// Get returns the value of the last member named key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil {
		return nil
	}
	for i := len(n.Fields) - 1; i >= 0; i-- {
		if n.Fields[i].Key == key {
			return n.Fields[i].Value
		}
	}
	return nil
}

// Keys returns the set of member names whose value is not null.
func (n *Node) Keys() map[string]bool {
	keys := map[string]bool{}
	if n == nil {
		return keys
	}
	for _, f := range n.Fields {
		if f.Value.Kind != Null {
			keys[f.Key] = true
		}
	}
	return keys
}

// JSON encodes the subtree rooted at n.
func (n *Node) JSON() []byte { return n.appendJSON(nil) }

func (n *Node) appendJSON(b []byte) []byte {
	switch n.Kind {
	case Bool:
		return strconv.AppendBool(b, n.Bool)
	case Number:
		return append(b, n.Num...)
	case String:
		s, _ := json.Marshal(n.Str)
		return append(b, s...)
	case Object:
		b = append(b, '{')
		for i, f := range n.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(f.Key)
			b = append(append(b, k...), ':')
			b = f.Value.appendJSON(b)
		}
		return append(b, '}')
	case Array:
		b = append(b, '[')
		for i, it := range n.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.appendJSON(b)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

// Locate returns the position of the value at path, or of its nearest
// ancestor present in the tree (a missing field is reported where its
// object starts). A nil tree locates nothing.
func (n *Node) Locate(path string) Pos {
	_, pos := n.walk(SplitPath(path))
	return pos
}

// LocateKey is Locate for a path ending in a member name, returning where
// the name itself is written: the place to report a bad key.
func (n *Node) LocateKey(path string) Pos {
	segs := SplitPath(path)
	if len(segs) == 0 || !segs[len(segs)-1].IsKey {
		return n.Locate(path)
	}
	parent, pos := n.walk(segs[:len(segs)-1])
	if parent != nil && parent.Kind == Object {
		for i := len(parent.Fields) - 1; i >= 0; i-- {
			if f := parent.Fields[i]; f.Key == segs[len(segs)-1].Key {
				return f.KeyPos
			}
		}
	}
	return pos
}

// walk follows segs from n; it returns the node reached (nil when a
// segment is missing) and the position of the deepest node found.
func (n *Node) walk(segs []Segment) (*Node, Pos) {
	if n == nil {
		return nil, Pos{}
	}
	cur := n
	for _, seg := range segs {
		next := cur.child(seg)
		if next == nil {
			return nil, cur.Pos
		}
		cur = next
	}
	return cur, cur.Pos
}

func (n *Node) child(seg Segment) *Node {
	switch {
	case seg.IsKey && n.Kind == Object:
		return n.Get(seg.Key)
	case !seg.IsKey && n.Kind == Array && seg.Index >= 0 && seg.Index < len(n.Items):
		return n.Items[seg.Index]
	}
	return nil
}
