package source

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// maxYAMLNodes bounds a document after alias expansion, so that a small
// file full of nested aliases cannot exhaust memory.
const maxYAMLNodes = 100_000

// ParseYAML reads one YAML document. Anchors, aliases and merge keys are
// resolved; syntax errors are *ParseError with the line and column
// goccy/go-yaml reports.
func ParseYAML(file string, data []byte) (*Node, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(file, err)
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			p := nodePos(doc.Body)
			return nil, &ParseError{File: file, Line: p.Line, Column: p.Column, Msg: "expected one YAML document, found several"}
		}
		body = doc.Body
	}
	if body == nil {
		return nil, &ParseError{File: file, Line: 1, Column: 1, Msg: "empty document: expected a mapping"}
	}
	c := &yamlConv{file: file, anchors: map[string]ast.Node{}}
	return c.node(body)
}

func yamlError(file string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		p := tokenPos(ye.GetToken())
		return &ParseError{File: file, Line: p.Line, Column: p.Column, Msg: "invalid YAML: " + ye.GetMessage()}
	}
	return &ParseError{File: file, Msg: "invalid YAML: " + err.Error()}
}

func tokenPos(t *token.Token) Pos {
	if t == nil || t.Position == nil {
		return Pos{}
	}
	return Pos{Line: t.Position.Line, Column: t.Position.Column}
}

func nodePos(n ast.Node) Pos {
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 && !m.IsFlowStyle {
		return nodePos(m.Values[0].Key)
	}
	if n == nil {
		return Pos{}
	}
	return tokenPos(n.GetToken())
}

type yamlConv struct {
	file    string
	anchors map[string]ast.Node
	count   int
}

func (c *yamlConv) errorf(n ast.Node, format string, args ...any) error {
	p := nodePos(n)
	return &ParseError{File: c.file, Line: p.Line, Column: p.Column, Msg: fmt.Sprintf(format, args...)}
}

func (c *yamlConv) node(n ast.Node) (*Node, error) {
	if c.count++; c.count > maxYAMLNodes {
		return nil, c.errorf(n, "document too large after expanding aliases (more than %d values)", maxYAMLNodes)
	}
	out := &Node{Pos: nodePos(n)}
	switch x := n.(type) {
	case nil, *ast.NullNode:
	case *ast.StringNode:
		out.Kind, out.Str = String, x.Value
	case *ast.LiteralNode:
		out.Kind, out.Str = String, x.Value.Value
	case *ast.BoolNode:
		out.Kind, out.Bool = Bool, x.Value
	case *ast.IntegerNode:
		out.Kind, out.Num = Number, fmt.Sprint(x.Value)
	case *ast.FloatNode:
		if math.IsInf(x.Value, 0) || math.IsNaN(x.Value) {
			return nil, c.errorf(n, "%s: expected a finite number", x.GetToken().Value)
		}
		out.Kind, out.Num = Number, strconv.FormatFloat(x.Value, 'g', -1, 64)
	case *ast.InfinityNode, *ast.NanNode:
		return nil, c.errorf(n, "%s: expected a finite number", n.GetToken().Value)
	case *ast.MappingNode:
		out.Kind = Object
		return out, c.mapping(out, x.Values)
	case *ast.MappingValueNode:
		out.Kind = Object
		return out, c.mapping(out, []*ast.MappingValueNode{x})
	case *ast.SequenceNode:
		out.Kind = Array
		for _, v := range x.Values {
			it, err := c.node(v)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, it)
		}
	case *ast.AnchorNode:
		v, err := c.node(x.Value)
		if err == nil && x.Name != nil {
			c.anchors[x.Name.GetToken().Value] = x.Value
		}
		return v, err
	case *ast.AliasNode:
		return c.alias(x)
	case *ast.TagNode:
		return c.tagged(x)
	default:
		return nil, c.errorf(n, "unsupported YAML %s", n.Type())
	}
	return out, nil
}

func (c *yamlConv) alias(x *ast.AliasNode) (*Node, error) {
	name := ""
	if x.Value != nil {
		name = x.Value.GetToken().Value
	}
	target, ok := c.anchors[name]
	if !ok {
		return nil, c.errorf(x, "alias *%s: no anchor &%s defined before it", name, name)
	}
	v, err := c.node(target)
	if err == nil {
		v.Pos = nodePos(x)
	}
	return v, err
}

// tagged honours !!str (keep the scalar's text) and ignores other tags.
func (c *yamlConv) tagged(x *ast.TagNode) (*Node, error) {
	if x.Start != nil && x.Start.Value == "!!str" {
		if s, ok := x.Value.(ast.ScalarNode); ok && x.Value.GetToken() != nil {
			text := x.Value.GetToken().Value
			if str, ok := s.(*ast.StringNode); ok {
				text = str.Value
			}
			return &Node{Kind: String, Str: text, Pos: nodePos(x)}, nil
		}
	}
	return c.node(x.Value)
}

// mapping converts members in order; members brought in by a "<<" merge key
// come last and only where the mapping does not set the key itself.
func (c *yamlConv) mapping(out *Node, values []*ast.MappingValueNode) error {
	var merged []Field
	for _, mv := range values {
		if mv.Key != nil && mv.Key.IsMergeKey() {
			fields, err := c.merge(mv.Value)
			if err != nil {
				return err
			}
			merged = append(merged, fields...)
			continue
		}
		key, err := c.key(mv.Key)
		if err != nil {
			return err
		}
		v, err := c.node(mv.Value)
		if err != nil {
			return err
		}
		out.Fields = append(out.Fields, Field{Key: key, KeyPos: nodePos(mv.Key), Value: v})
	}
	for _, f := range merged {
		if out.Get(f.Key) == nil {
			out.Fields = append(out.Fields, f)
		}
	}
	return nil
}

func (c *yamlConv) merge(v ast.Node) ([]Field, error) {
	src, err := c.node(v)
	if err != nil {
		return nil, err
	}
	maps := []*Node{src}
	if src.Kind == Array {
		maps = src.Items
	}
	var fields []Field
	for _, m := range maps {
		if m.Kind != Object {
			return nil, c.errorf(v, "merge key <<: expected a mapping or a list of mappings, got %s", m.Kind)
		}
		fields = append(fields, m.Fields...)
	}
	return fields, nil
}

func (c *yamlConv) key(k ast.Node) (string, error) {
	if mk, ok := k.(*ast.MappingKeyNode); ok {
		k = mk.Value
	}
	switch x := k.(type) {
	case *ast.StringNode:
		return x.Value, nil
	case ast.ScalarNode:
		if t := x.GetToken(); t != nil {
			return strings.TrimSpace(t.Value), nil
		}
	}
	return "", c.errorf(k, "expected a plain scalar as mapping key")
}
