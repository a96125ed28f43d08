package schemas_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// miniValidator checks an instance against the subset of JSON Schema
// 2020-12 that schemas/ uses, so tests can confirm that the schemas and the
// Go validation agree. It is not a general validator.
type miniValidator struct {
	root map[string]any
}

// validate returns the problems found, empty when instance is valid.
func (m miniValidator) validate(instance any) []string {
	errs, _ := m.check(m.root, instance, "$")
	return errs
}

// check validates inst against s and returns the problems and the
// properties evaluated at this level (for unevaluatedProperties).
func (m miniValidator) check(s map[string]any, inst any, at string) ([]string, map[string]bool) {
	var errs []string
	eval := map[string]bool{}
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	sub := func(schema any, ok func(bool)) {
		e, ev := m.check(schema.(map[string]any), inst, at)
		if len(e) == 0 {
			for k := range ev {
				eval[k] = true
			}
		}
		ok(len(e) == 0)
	}
	if ref, ok := s["$ref"].(string); ok {
		def := m.root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")]
		e, ev := m.check(def.(map[string]any), inst, at)
		errs = append(errs, e...)
		for k := range ev {
			eval[k] = true
		}
	}
	if t, ok := s["type"]; ok && !typeMatches(t, inst) {
		fail("type %v", t)
		return errs, eval
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, inst) {
		fail("not in enum %v", enum)
	}
	if c, ok := s["const"]; ok && c != inst {
		fail("not const %v", c)
	}
	m.checkScalar(s, inst, fail)
	if arr, ok := inst.([]any); ok {
		if n, ok := s["minItems"].(float64); ok && float64(len(arr)) < n {
			fail("fewer than %v items", n)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range arr {
				e, _ := m.check(items, it, fmt.Sprintf("%s[%d]", at, i))
				errs = append(errs, e...)
			}
		}
	}
	if obj, ok := inst.(map[string]any); ok {
		errs = append(errs, m.checkObject(s, obj, at, eval)...)
	}
	for _, a := range list(s["allOf"]) {
		sub(a, func(ok bool) {
			if !ok {
				fail("allOf branch fails")
			}
		})
	}
	if anyOf := list(s["anyOf"]); len(anyOf) > 0 {
		n := 0
		for _, a := range anyOf {
			sub(a, func(ok bool) {
				if ok {
					n++
				}
			})
		}
		if n == 0 {
			fail("no anyOf branch matches")
		}
	}
	if one := list(s["oneOf"]); len(one) > 0 {
		n := 0
		for _, a := range one {
			sub(a, func(ok bool) {
				if ok {
					n++
				}
			})
		}
		if n != 1 {
			fail("%d oneOf branches match, expected 1", n)
		}
	}
	if not, ok := s["not"].(map[string]any); ok {
		if e, _ := m.check(not, inst, at); len(e) == 0 {
			fail("matches not")
		}
	}
	if cond, ok := s["if"].(map[string]any); ok {
		if e, _ := m.check(cond, inst, at); len(e) == 0 {
			if then, ok := s["then"]; ok {
				e, ev := m.check(then.(map[string]any), inst, at)
				errs = append(errs, e...)
				for k := range ev {
					eval[k] = true
				}
			}
		}
	}
	if obj, ok := inst.(map[string]any); ok && s["unevaluatedProperties"] == false {
		for k := range obj {
			if !eval[k] {
				fail("unevaluated property %q", k)
			}
		}
	}
	return errs, eval
}

func (m miniValidator) checkScalar(s map[string]any, inst any, fail func(string, ...any)) {
	if str, ok := inst.(string); ok {
		if n, ok := s["minLength"].(float64); ok && float64(len([]rune(str))) < n {
			fail("shorter than %v", n)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			fail("%q does not match %s", str, p)
		}
	}
	if f, ok := inst.(float64); ok {
		if n, ok := s["minimum"].(float64); ok && f < n {
			fail("below %v", n)
		}
		if n, ok := s["maximum"].(float64); ok && f > n {
			fail("above %v", n)
		}
	}
}

func (m miniValidator) checkObject(s map[string]any, obj map[string]any, at string, eval map[string]bool) []string {
	var errs []string
	for _, r := range list(s["required"]) {
		if _, ok := obj[r.(string)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: missing %q", at, r))
		}
	}
	props, _ := s["properties"].(map[string]any)
	for k, v := range obj {
		if pn, ok := s["propertyNames"].(map[string]any); ok {
			e, _ := m.check(pn, k, at+"."+k+"(name)")
			errs = append(errs, e...)
		}
		if p, ok := props[k]; ok {
			e, _ := m.check(p.(map[string]any), v, at+"."+k)
			errs = append(errs, e...)
			eval[k] = true
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				errs = append(errs, fmt.Sprintf("%s: additional property %q", at, k))
			}
		case map[string]any:
			e, _ := m.check(ap, v, at+"."+k)
			errs = append(errs, e...)
			eval[k] = true
		}
	}
	return errs
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func typeMatches(t any, inst any) bool {
	if ts, ok := t.([]any); ok {
		return slices.ContainsFunc(ts, func(x any) bool { return typeMatches(x, inst) })
	}
	switch t {
	case "object":
		_, ok := inst.(map[string]any)
		return ok
	case "array":
		_, ok := inst.([]any)
		return ok
	case "string":
		_, ok := inst.(string)
		return ok
	case "boolean":
		_, ok := inst.(bool)
		return ok
	case "number":
		_, ok := inst.(float64)
		return ok
	case "integer":
		f, ok := inst.(float64)
		return ok && f == math.Trunc(f)
	case "null":
		return inst == nil
	}
	return false
}

func mustJSON(data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		panic(err)
	}
	return v
}
