package schemas_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/schemas"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/task/source"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func validators(t *testing.T) (taskV, trajV miniValidator) {
	t.Helper()
	return miniValidator{root: decode(t, schemas.Task)}, miniValidator{root: decode(t, schemas.Trajectory)}
}

// TestExamplesMatchSchemas validates the test examples against the schemas.
func TestExamplesMatchSchemas(t *testing.T) {
	taskV, trajV := validators(t)

	for _, p := range []string{"../task/testdata/deploy-otp/task.yaml", "../trajectory/testdata/deploy-otp.yaml"} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		n, err := source.ParseYAML(p, data)
		require.NoError(t, err)
		assert.Empty(t, taskV.validate(mustJSON(n.JSON())), p)
	}
	for _, p := range []string{"../trajectory/testdata/deploy-otp.json", "../trajectory/testdata/set.jsonl"} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			if filepath.Ext(p) == ".json" {
				line = string(data)
			}
			if strings.TrimSpace(line) != "" {
				assert.Empty(t, trajV.validate(mustJSON([]byte(line))), "%s:%d", p, i+1)
			}
			if filepath.Ext(p) == ".json" {
				break
			}
		}
	}
}

// TestSchemasAndGoAgree feeds the same documents to the schemas and to the
// Go parsers: both must accept or both must reject.
func TestSchemasAndGoAgree(t *testing.T) {
	taskV, trajV := validators(t)
	const v = `"verify": {"command": "true"}`
	tasks := []struct {
		doc   string
		valid bool
	}{
		{`{"id": "a", "image": "x", ` + v + `}`, true},
		{`{"id": "a", "build": {"context": ".", "dockerfile": "d/Dockerfile"}, "limits": {"memory": "1.5 GiB", "output": 1024, "step_timeout": "1m30s", "episode_timeout": 60}, ` + v + `}`, true},
		{`{"id": "a", "image": "x", "services": {"api": "https://h:1/base"}, "env": {"A_1": "x"}, "rubric": [{"id": "r", "command": "c", "weight": 0.5}], ` + v + `}`, true},
		{`{"id": "A", "image": "x", ` + v + `}`, false},
		{`{"id": "a", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "build": {"context": "."}, ` + v + `}`, true},
		{`{"id": "a", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "workdir": "w", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "shell": "bash", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "network": "host", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "env": {"1A": "x"}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "services": {"api": "localhost"}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "files": {"/abs": "x"}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"memory": "1GiX"}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"step_timeout": "-1s"}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"pids": -1}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "verify": {"command": " "}}`, false},
		{`{"id": "a", "image": "x", "rubric": [{"id": "r", "command": "c", "weight": -1}], ` + v + `}`, false},
		{`{"id": "a", "image": "x", "extra": 1, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "user": "1000:1000", "read_only_root": true, "cap_add": ["DAC_OVERRIDE"], "limits": {"disk": "2GiB", "file_size": 1048576, "nofile": 1024}, ` + v + `}`, true},
		{`{"id": "a", "image": "x", "user": "agent", ` + v + `}`, true},
		{`{"id": "a", "image": "x", "user": "agent:", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "user": "a b", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "user": 1000, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "read_only_root": "yes", ` + v + `}`, false},
		{`{"id": "a", "image": "x", "cap_add": ["ALL"], ` + v + `}`, false},
		{`{"id": "a", "image": "x", "cap_add": ["net_admin"], ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"nofile": 2000000}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"nofile": -1}, ` + v + `}`, false},
		{`{"id": "a", "image": "x", "limits": {"disk": "lots"}, ` + v + `}`, false},
	}
	for _, tc := range tasks {
		_, err := task.Parse("t.json", []byte(tc.doc))
		assert.Equal(t, tc.valid, err == nil, "Go on %s: %v", tc.doc, err)
		errs := taskV.validate(mustJSON([]byte(tc.doc)))
		assert.Equal(t, tc.valid, len(errs) == 0, "schema on %s: %v", tc.doc, errs)
	}

	wrap := func(step string) string { return `{"id": "t", "task": "x", "steps": [` + step + `]}` }
	trajs := []struct {
		doc   string
		valid bool
	}{
		{wrap(`{"action": "shell", "command": "ls", "timeout": 5, "cwd": "/", "env": {"A": "b"}, "observation": {"output": "", "exit_code": -1}, "tokens": 3, "compare": "ignore", "volatile": true, "checkpoint": false}`), true},
		{wrap(`{"action": "write_file", "path": "p", "content_b64": "eA==", "mode": "0755"}`), true},
		{wrap(`{"action": "read_file", "path": "p", "range": {"start": 2}}`), true},
		{wrap(`{"action": "edit_file", "path": "p", "insert_line": 0, "text": ""}`), true},
		{wrap(`{"action": "http", "method": "HEAD", "url": "https://h/", "headers": {"X-A": "1"}, "capture": {"a": "b.0"}, "observation": {"status": 204}}`), true},
		{wrap(`{"action": "noop", "note": "n", "messages": [{"role": "assistant", "content": "x"}]}`), true},
		{wrap(`{"action": "shell"}`), false},
		{wrap(`{"action": "shell", "command": "ls", "content": "x"}`), false},
		{wrap(`{"action": "noop", "note": "n", "path": "p"}`), false},
		{wrap(`{"action": "bash", "command": "ls"}`), false},
		{wrap(`{"command": "ls"}`), false},
		{wrap(`{"action": "write_file", "path": "p"}`), false},
		{wrap(`{"action": "write_file", "path": "p", "content": "", "content_b64": ""}`), false},
		{wrap(`{"action": "write_file", "path": "p", "content": "", "mode": "0o755"}`), false},
		{wrap(`{"action": "read_file", "path": "p", "range": {"start": 0}}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "old": "a", "new": "b", "text": "c"}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "old": "a"}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "insert_line": -1, "text": "c"}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "old": "a", "new": "b", "all": true}`), true},
		{wrap(`{"action": "edit_file", "path": "p", "insert_line": 1, "text": "c", "all": true}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "old": "a", "new": "b", "all": "yes"}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "range": {"start": 2, "end": 3}, "text": ""}`), true},
		{wrap(`{"action": "edit_file", "path": "p", "range": {"start": 2, "end": 3}}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "range": {"start": 2, "end": 3}, "text": "x", "old": "a", "new": "b"}`), false},
		{wrap(`{"action": "edit_file", "path": "p", "range": {"start": 0, "end": 3}, "text": "x"}`), false},
		{wrap(`{"action": "http", "method": "POST", "url": "http://h/", "retry": true}`), true},
		{wrap(`{"action": "http", "method": "GET", "url": "http://h/", "retry": false}`), true},
		{wrap(`{"action": "http", "method": "POST", "url": "http://h/", "retry": "yes"}`), false},
		{wrap(`{"action": "shell", "command": "ls", "retry": true}`), false},
		{wrap(`{"action": "http", "method": "get", "url": "http://h/"}`), false},
		{wrap(`{"action": "http", "method": "GET", "url": "http://h/", "capture": {"a-b": "x"}}`), false},
		{wrap(`{"action": "http", "method": "GET", "url": "http://h/", "headers": {"A B": "x"}}`), false},
		{wrap(`{"action": "http", "method": "GET", "url": "http://h/", "observation": {"status": 42}}`), false},
		{wrap(`{"action": "shell", "command": "ls", "compare": "fuzzy"}`), false},
		{wrap(`{"action": "shell", "command": "ls", "tokens": -1}`), false},
		{wrap(`{"action": "shell", "command": "ls", "observation": {"stdout": ""}}`), false},
		{wrap(`{"action": "noop", "messages": [{"content": "x"}]}`), false},
		{`{"id": "t", "task": "x", "steps": []}`, false},
		{`{"id": "t", "steps": [{"action": "noop"}]}`, false},
		{`{"id": "t", "task": "x", "vars": {"a-b": "1"}, "steps": [{"action": "noop"}]}`, false},
	}
	for _, tc := range trajs {
		_, err := trajectory.Parse("t.json", []byte(tc.doc), false)
		assert.Equal(t, tc.valid, err == nil, "Go on %s: %v", tc.doc, err)
		errs := trajV.validate(mustJSON([]byte(tc.doc)))
		assert.Equal(t, tc.valid, len(errs) == 0, "schema on %s: %v", tc.doc, errs)
	}
}
