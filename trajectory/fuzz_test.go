package trajectory_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func FuzzParseTrajectory(f *testing.F) {
	for _, name := range []string{"deploy-otp.json", "set.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(data, strings.HasSuffix(name, ".jsonl"))
	}
	f.Add([]byte(doc(`{"action": "edit_file", "path": "a", "insert_line": -1, "text": "z", "old": "x"}`)), false)
	f.Add([]byte(doc(`{"action": "http", "method": "GET", "url": "{{services.a}}{{vars.", "capture": {"x": "a..b"}}`)), false)
	f.Add([]byte("{\"id\": \"a\"}\n\n[1,2]\n{\"steps\": [{}]}\r\n"), true)
	f.Add([]byte(`{"id": "t", "task": "x", "steps": [{"action": "write_file", "path": "p", "content_b64": "=", "mode": "7777"}]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		ts, err := trajectory.Parse("f.json", data, jsonl)
		if err != nil {
			var pe *task.ParseError
			assert.True(t, errors.As(err, &pe), "error is a *task.ParseError: %v", err)
		}
		for _, tr := range ts {
			// Whatever parses validates, and survives a write and a re-read.
			require.NoError(t, tr.Validate())
			var buf bytes.Buffer
			require.NoError(t, trajectory.Write(&buf, tr))
			_, err := trajectory.Parse("f.json", buf.Bytes(), false)
			require.NoError(t, err, "re-read of:\n%s", buf.String())
		}
	})
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "{{vars.a}}", "{{ services.api }}/x", "{{", "{{vars.", "{{vars.a", "{{vars.a b}}", "}}{{vars.a}}}}", "{{\n vars.a}}", "{{{{vars.a}}}}"} {
		f.Add(s)
	}
	vars := map[string]string{"a": "A", "b": "{{vars.a}}"}
	services := map[string]string{"api": "http://h"}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := trajectory.Expand(s, vars, services)
		refs := trajectory.References(s)
		if err != nil {
			require.True(t, errors.Is(err, trajectory.ErrUndefined) || errors.Is(err, trajectory.ErrMalformedRef), "%v", err)
			return
		}
		if len(refs) == 0 {
			require.Equal(t, s, out, "text without references is left alone")
		}
		for _, r := range refs {
			require.Equal(t, r.Raw, s[r.Offset:r.Offset+len(r.Raw)])
		}
	})
}
