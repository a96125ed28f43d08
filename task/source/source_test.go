package source_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task/source"
)

func TestPathRoundTrip(t *testing.T) {
	p := source.Key(source.Index(source.Key("", "steps"), 3), "env")
	p = source.Key(p, `we"ird.key[0]`)
	assert.Equal(t, `steps[3].env["we\"ird.key[0]"]`, p)
	assert.Equal(t, []source.Segment{
		{IsKey: true, Key: "steps"}, {Index: 3}, {IsKey: true, Key: "env"}, {IsKey: true, Key: `we"ird.key[0]`},
	}, source.SplitPath(p))
	assert.Empty(t, source.SplitPath(""))
	assert.Len(t, source.SplitPath("a[x]"), 1, "stops at a malformed segment")
}

func TestJSONPositions(t *testing.T) {
	doc := "{\n  \"a\": [1, {\"b\": \"é\", \"c\": null}],\n\t\"d\" : true\n}"
	n, err := source.ParseJSON("x.json", []byte(doc))
	require.NoError(t, err)
	assert.Equal(t, source.Pos{Line: 1, Column: 1}, n.Pos)
	assert.Equal(t, source.Pos{Line: 2, Column: 8}, n.Locate("a"))
	assert.Equal(t, source.Pos{Line: 2, Column: 12}, n.Locate("a[1]"))
	assert.Equal(t, source.Pos{Line: 2, Column: 18}, n.Locate("a[1].b"))
	assert.Equal(t, source.Pos{Line: 2, Column: 28}, n.Locate("a[1].c"), "columns count characters, not bytes")
	assert.Equal(t, source.Pos{Line: 2, Column: 23}, n.LocateKey("a[1].c"))
	assert.Equal(t, source.Pos{Line: 3, Column: 8}, n.Locate("d"))
	assert.Equal(t, source.Pos{Line: 2, Column: 12}, n.Locate("a[1].missing"), "a missing field is located at its object")
	assert.Equal(t, `{"a":[1,{"b":"é","c":null}],"d":true}`, string(n.JSON()))
	assert.Equal(t, map[string]bool{"b": true}, n.Get("a").Items[1].Keys(), "null members are absent")
}

func TestJSONLinePositions(t *testing.T) {
	n, err := source.ParseJSONLine("x.jsonl", []byte(`{"a": 1}`), 7)
	require.NoError(t, err)
	assert.Equal(t, source.Pos{Line: 7, Column: 7}, n.Locate("a"))

	_, err = source.ParseJSONLine("x.jsonl", []byte(`{"a": 1} 2`), 7)
	assert.EqualError(t, err, "x.jsonl:7:10: invalid JSON: invalid character '2' after top-level value")
}

func TestYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		prev := "*a" + string(rune('0'+i-1))
		if i > 10 {
			prev = "*a" + string(rune('a'+i-11))
		}
		name := string(rune('0' + i))
		if i >= 10 {
			name = string(rune('a' + i - 10))
		}
		b.WriteString("a" + name + ": &a" + name + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	_, err := source.ParseYAML("bomb.yaml", []byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "document too large after expanding aliases")
}

func TestYAMLPositionsAndTags(t *testing.T) {
	n, err := source.ParseYAML("x.yaml", []byte("a: 1\nb:\n  - !!str 012\n  - |\n    text\nc: {d: .5}\n"))
	require.NoError(t, err)
	assert.Equal(t, source.Pos{Line: 1, Column: 4}, n.Locate("a"))
	assert.Equal(t, source.Pos{Line: 2, Column: 1}, n.LocateKey("b"))
	assert.Equal(t, `{"a":1,"b":["012","text\n"],"c":{"d":0.5}}`, string(n.JSON()))
}

func TestDecode(t *testing.T) {
	type inner struct {
		N  int     `json:"n"`
		F  float64 `json:"f,omitempty"`
		Ok *bool   `json:"ok"`
	}
	type outer struct {
		Items []inner         `json:"items"`
		M     map[string]int8 `json:"m"`
		Skip  string          `json:"-"`
	}
	n, err := source.ParseJSON("x.json", []byte(`{"items": [{"n": 1e2, "ok": true}, {"n": null}], "m": {"a": 1}}`))
	require.NoError(t, err)
	var v outer
	require.NoError(t, source.Decode("x.json", n, &v))
	require.Len(t, v.Items, 2)
	assert.Equal(t, 100, v.Items[0].N)
	assert.True(t, *v.Items[0].Ok)
	assert.Nil(t, v.Items[1].Ok)

	n, err = source.ParseJSON("x.json", []byte(`{"items": [{"n": 1.5, "x": 1}], "m": {"a": 300, "a": 1}, "Skip": "s"}`))
	require.NoError(t, err)
	err = source.Decode("x.json", n, &v)
	require.Error(t, err)
	for _, want := range []string{
		"x.json:1:18: items[0].n: 1.5: expected a whole number",
		`x.json:1:23: items[0].x: unknown field; did you mean "n"?`,
		"x.json:1:44: m.a: 300: expected a whole number in range",
		`x.json:1:49: m.a: duplicate key "a"`,
		"x.json:1:58: Skip: unknown field; expected one of items, m",
	} {
		assert.Contains(t, err.Error(), want)
	}
}
