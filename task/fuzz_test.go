package task_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/task"
)

func FuzzParseTask(f *testing.F) {
	f.Add("t.yaml", []byte("id: a\nimage: x\nverify: {command: 'true'}\n"))
	f.Add("t.yaml", []byte("a: &x [*x]\n"))
	f.Add("t.yaml", []byte("limits:\n  <<: [{cpus: 1}, {pids: 2}]\n"))
	f.Add("t.yaml", []byte("id: !!str 12\nimage: x\nverify: {command: |\n  a\n  b\n}\n"))
	f.Add("t.json", []byte(`{"id": "a", "build": {"context": "."}, "limits": {"memory": "1GiB", "step_timeout": 30}, "verify": {"command": "true"}}`))
	f.Add("t.json", []byte(`{"files": {"../x": "", "a/": "b"}, "rubric": [{"id": "r"}, {"id": "r", "weight": -1}]}`))
	f.Add("t.json", []byte(`[1, "a", null, true, {"x": [[]]}]`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		tk, err := task.Parse(name, data)
		if err != nil {
			var pe *task.ParseError
			assert.True(t, errors.As(err, &pe), "error is a *task.ParseError: %v", err)
			return
		}
		// A task that parses is valid, and its spec is usable.
		require.NoError(t, tk.Validate())
		_ = provision.Spec(tk)
	})
}

func FuzzByteSize(f *testing.F) {
	for _, s := range []string{"0", "512MiB", "1GiB", "1g", "100k", "1.5m", "nan", "inf", "-1", "1e300", " 7 kb ", "b", "4611686018427387904"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := task.ParseByteSize(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, int64(n), int64(0), "%q parsed to a negative size", s)
		b, err := json.Marshal(n)
		require.NoError(t, err)
		var back task.ByteSize
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, n, back)
	})
}

func FuzzDuration(f *testing.F) {
	for _, s := range []string{`"90s"`, `"1m30s"`, `90`, `0.5`, `-1`, `"-3s"`, `1e300`, `"2562047h"`, `null`, `{}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d task.Duration
		if err := d.UnmarshalJSON(data); err != nil {
			return
		}
		require.GreaterOrEqual(t, int64(d), int64(0), "%s parsed to a negative duration", data)
		b, err := json.Marshal(d)
		require.NoError(t, err)
		var back task.Duration
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, d, back)
	})
}
