package source

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decode stores the tree n into v, a pointer to a struct, following the
// struct's json tags strictly: unknown and repeated members, and values of
// the wrong type, are reported as *ParseError (all of them, joined) naming
// the field path and what was expected. Types with an UnmarshalJSON method
// decode through it. A null value leaves the field at its zero value.
func Decode(file string, n *Node, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode %s: expected a non-nil pointer, got %T", file, v)
	}
	d := &decoder{r: NewReporter(file, n)}
	d.value(n, rv.Elem(), "")
	return d.r.Err()
}

type decoder struct {
	r *Reporter
}

func (d *decoder) at(n *Node, field, format string, args ...any) {
	d.r.Add(&ParseError{File: d.r.file, Line: n.Pos.Line, Column: n.Pos.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func (d *decoder) value(n *Node, v reflect.Value, path string) {
	if n.Kind == Null {
		v.SetZero()
		return
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(n.JSON()); err != nil {
			d.at(n, path, "%s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.value(n, p.Elem(), path)
		v.Set(p)
	case reflect.Struct:
		d.object(n, v, path)
	case reflect.Map:
		d.mapping(n, v, path)
	case reflect.Slice:
		if d.expect(n, Array, path) {
			s := reflect.MakeSlice(v.Type(), len(n.Items), len(n.Items))
			for i, it := range n.Items {
				d.value(it, s.Index(i), Index(path, i))
			}
			v.Set(s)
		}
	case reflect.String:
		if d.expect(n, String, path) {
			v.SetString(n.Str)
		}
	case reflect.Bool:
		if d.expect(n, Bool, path) {
			v.SetBool(n.Bool)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.integer(n, v, path)
	case reflect.Float32, reflect.Float64:
		if d.expect(n, Number, path) {
			f, err := strconv.ParseFloat(n.Num, 64)
			if err != nil || v.OverflowFloat(f) {
				d.at(n, path, "%s: expected a number in range", n.Num)
				return
			}
			v.SetFloat(f)
		}
	default:
		d.at(n, path, "cannot decode into %s", v.Type())
	}
}

func (d *decoder) expect(n *Node, k Kind, path string) bool {
	if n.Kind != k {
		d.at(n, path, "expected %s, got %s", k, describe(n))
		return false
	}
	return true
}

// describe names a node's kind with a short excerpt of its value.
func describe(n *Node) string {
	var val string
	switch n.Kind {
	case String:
		val = strconv.Quote(n.Str)
	case Number:
		val = n.Num
	case Bool:
		val = strconv.FormatBool(n.Bool)
	default:
		return n.Kind.String()
	}
	if len(val) > 40 {
		val = val[:37] + "..."
	}
	return n.Kind.String() + " (" + val + ")"
}

func (d *decoder) integer(n *Node, v reflect.Value, path string) {
	if !d.expect(n, Number, path) {
		return
	}
	i, err := strconv.ParseInt(n.Num, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(n.Num, 64)
		if ferr != nil || f != float64(int64(f)) || f > 1<<62 || f < -(1<<62) {
			d.at(n, path, "%s: expected a whole number", n.Num)
			return
		}
		i = int64(f)
	}
	if v.OverflowInt(i) {
		d.at(n, path, "%s: expected a whole number in range", n.Num)
		return
	}
	v.SetInt(i)
}

func (d *decoder) mapping(n *Node, v reflect.Value, path string) {
	if !d.expect(n, Object, path) {
		return
	}
	if v.Type().Key().Kind() != reflect.String {
		d.at(n, path, "cannot decode into %s", v.Type())
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Fields))
	seen := map[string]bool{}
	for _, f := range n.Fields {
		fp := Key(path, f.Key)
		if seen[f.Key] {
			d.r.Add(&ParseError{File: d.r.file, Line: f.KeyPos.Line, Column: f.KeyPos.Column, Field: fp,
				Msg: fmt.Sprintf("duplicate key %q", f.Key)})
			continue
		}
		seen[f.Key] = true
		e := reflect.New(v.Type().Elem()).Elem()
		d.value(f.Value, e, fp)
		m.SetMapIndex(reflect.ValueOf(f.Key).Convert(v.Type().Key()), e)
	}
	v.Set(m)
}

func (d *decoder) object(n *Node, v reflect.Value, path string) {
	if !d.expect(n, Object, path) {
		return
	}
	fields := structFields(v.Type())
	seen := map[string]bool{}
	for _, f := range n.Fields {
		fp := Key(path, f.Key)
		idx, ok := fields.index[f.Key]
		switch {
		case !ok:
			d.r.Add(&ParseError{File: d.r.file, Line: f.KeyPos.Line, Column: f.KeyPos.Column, Field: fp,
				Msg: "unknown field" + suggest(f.Key, fields.names)})
		case seen[f.Key]:
			d.r.Add(&ParseError{File: d.r.file, Line: f.KeyPos.Line, Column: f.KeyPos.Column, Field: fp,
				Msg: "field given twice"})
		default:
			seen[f.Key] = true
			d.value(f.Value, v.Field(idx), fp)
		}
	}
}

type fieldSet struct {
	index map[string]int
	names []string
}

var fieldCache sync.Map // reflect.Type → *fieldSet

// structFields maps the json names of t's fields to their index.
func structFields(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{index: map[string]int{}, names: FieldNames(t)}
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			fs.index[name] = i
		}
	}
	fieldCache.Store(t, fs)
	return fs
}

// FieldNames lists the json member names of struct type t, in declaration
// order (fields tagged "-" and unexported fields are left out).
func FieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			names = append(names, name)
		}
	}
	return names
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}
