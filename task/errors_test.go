package task_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
)

// base is a valid task body that each malformed case extends or edits.
const base = "id: a\nimage: x\nverify: {command: 'true'}\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file, doc string
		// where is "line:col: field" as it must appear after the file name.
		where, want string
	}{
		{"yaml syntax", "t.yaml", "id: a\nimage: [x\n", "2:", "invalid YAML"},
		{"json syntax", "t.json", "{\n  \"id\": \"a\",\n  \"image\" \"x\"\n}", "3:11", `invalid JSON: invalid character '"' after object key`},
		{"json trailing comma", "t.json", "{\"id\": \"a\",}", "1:12", "invalid JSON"},
		{"empty", "t.yaml", "", "1:1", "empty document"},
		{"not a mapping", "t.yaml", "- a\n- b\n", "1:1", "expected a task object, got an array"},
		{"id missing", "t.yaml", "image: x\nverify: {command: 'true'}\n", "1:1: id", `required: a name such as "deploy-otp"`},
		{"id pattern", "t.yaml", "id: Bad_ID\nimage: x\nverify: {command: 'true'}\n", "1:5: id", "lower-case letters"},
		{"id too long", "t.json", `{"id": "` + string(make129()) + `", "image": "x", "verify": {"command": "true"}}`, "1:8: id", "1 to 128"},
		{"neither image nor build", "t.yaml", "id: a\nverify: {command: 'true'}\n", "1:1: image", `required: "image", "build", or both`},
		{"build escapes", "t.yaml", "id: a\nbuild: {context: ../up}\nverify: {command: 'true'}\n", "2:18: build.context", "escapes with .."},
		{"workdir relative", "t.yaml", base + "workdir: work\n", "4:10: workdir", "expected an absolute path"},
		{"env key", "t.yaml", base + "env:\n  2FA: x\n", "5:3: env[\"2FA\"]", "shell variable name"},
		{"env value type", "t.yaml", base + "env:\n  PORT: 8080\n", "5:9: env.PORT", "expected a string, got a number (8080)"},
		{"shell enum", "t.yaml", base + "shell: bash\n", "4:8: shell", `expected "session", "exec" or "terminal"`},
		{"network enum", "t.yaml", base + "network: host\n", "4:10: network", `expected "none" or "bridge"`},
		{"negative cpus", "t.yaml", base + "limits: {cpus: -1}\n", "4:16: limits.cpus", "non-negative"},
		{"bad memory", "t.yaml", base + "limits: {memory: 1GB2}\n", "4:18: limits.memory", `expected a number with an optional unit`},
		{"bad duration", "t.yaml", base + "limits: {step_timeout: soon}\n", "4:24: limits.step_timeout", `expected a duration such as "30s"`},
		{"negative duration", "t.json", `{"id": "a", "image": "x", "verify": {"command": "true", "timeout": -3}}`, "1:68: verify.timeout", "non-negative"},
		{"pids fraction", "t.yaml", base + "limits: {pids: 1.5}\n", "4:16: limits.pids", "expected a whole number"},
		{"unknown field", "t.yaml", base + "imagee: y\n", "4:1: imagee", `unknown field; did you mean "image"?`},
		{"unknown nested field", "t.yaml", base + "limits: {memroy: 1g}\n", "4:10: limits.memroy", `did you mean "memory"?`},
		{"unknown field far", "t.json", `{"id": "a", "image": "x", "verify": {"command": "true"}, "zzzzzz": 1}`, "1:58: zzzzzz", "expected one of id, instruction, image"},
		{"duplicate json key", "t.json", `{"id": "a", "id": "b", "image": "x", "verify": {"command": "true"}}`, "1:13: id", "field given twice"},
		{"duplicate yaml key", "t.yaml", "id: a\nid: b\n", "2:1", "invalid YAML"},
		{"service name", "t.yaml", base + "services: {9x: 'http://h'}\n", "4:12: services[\"9x\"]", "service name"},
		{"service url", "t.yaml", base + "services: {api: 'localhost:8080'}\n", "4:17: services.api", "absolute http:// or https:// URL"},
		{"verify command", "t.yaml", "id: a\nimage: x\nverify: {timeout: 5s}\n", "3:9: verify.command", "required"},
		{"verify missing", "t.yaml", "id: a\nimage: x\n", "1:1: verify.command", "required"},
		{"files absolute", "t.yaml", base + "files: {/etc/passwd: x}\n", "4:22: files[\"/etc/passwd\"]", "not an absolute path"},
		{"files escape", "t.yaml", base + "files: {'a/../../b': x}\n", "4:22: files[\"a/../../b\"]", "escapes with .."},
		{"files destination", "t.yaml", base + "files: {a: ''}\n", "4:12: files.a", "expected a destination path"},
		{"verify files escape", "t.yaml", "id: a\nimage: x\nverify:\n  command: 'true'\n  files: {../tests/: /tests/}\n", "5:22: verify.files[\"../tests/\"]", "escapes"},
		{"rubric duplicate", "t.yaml", base + "rubric:\n  - {id: r, command: a}\n  - {id: r, command: b}\n", "6:10: rubric[1].id", `"r": expected a unique id, already used by rubric[0]`},
		{"rubric weight", "t.yaml", base + "rubric:\n  - {id: r, command: a, weight: -2}\n", "5:33: rubric[0].weight", "non-negative weight"},
		{"rubric id missing", "t.yaml", base + "rubric:\n  - {command: a}\n", "5:5: rubric[0].id", "required"},
		{"wrong type list", "t.yaml", base + "rubric: {id: r}\n", "4:9: rubric", "expected an array, got an object"},
		{"infinite number", "t.yaml", base + "limits: {cpus: .inf}\n", "4:16", "expected a finite number"},
		{"undefined alias", "t.yaml", base + "env: *nothing\n", "4:", "nothing"},
		{"two documents", "t.yaml", base + "---\n" + base, "5:1", "expected one YAML document"},
		{"user syntax", "t.yaml", base + "user: 'a b'\n", "4:7: user", `"a b": expected "uid", "uid:gid"`},
		{"user type", "t.yaml", base + "user: 1000\n", "4:7: user", "expected a string"},
		{"cap_add all", "t.yaml", base + "cap_add: [CHOWN, ALL]\n", "4:18: cap_add[1]", "name each capability"},
		{"cap_add lower", "t.yaml", base + "cap_add: [net_admin]\n", "4:11: cap_add[0]", "expected a capability name"},
		{"read_only_root type", "t.yaml", base + "read_only_root: yes please\n", "4:17: read_only_root", "expected a boolean"},
		{"read_only_root files", "t.yaml", base + "read_only_root: true\nfiles: {a: /etc/a}\n", "5:12: files.a", "with read_only_root, expected a destination under the workdir (/workspace) or /tmp"},
		{"read_only_root verify files", "t.yaml", "id: a\nimage: x\nread_only_root: true\nverify:\n  command: 'true'\n  files: {t/: /tests/}\n", "6:15: verify.files[\"t/\"]", "under the workdir"},
		{"read_only_root workdir", "t.yaml", base + "read_only_root: true\nworkdir: /tmp\n", "5:10: workdir", "other than / and /tmp"},
		{"negative disk", "t.yaml", base + "limits: {disk: -1}\n", "4:16: limits.disk", "non-negative"},
		{"bad file_size", "t.yaml", base + "limits: {file_size: 1 lot}\n", "4:21: limits.file_size", "expected a number with an optional unit"},
		{"nofile too high", "t.yaml", base + "limits: {nofile: 2000000}\n", "4:18: limits.nofile", "at most 1048576"},
		{"negative nofile", "t.yaml", base + "limits: {nofile: -5}\n", "4:18: limits.nofile", "non-negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := task.Parse(tc.file, []byte(tc.doc))
			require.Error(t, err)
			var pe *task.ParseError
			require.ErrorAs(t, err, &pe, "every problem is a *task.ParseError")
			assert.Contains(t, err.Error(), tc.file+":"+tc.where)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func make129() []byte {
	b := make([]byte, 129)
	for i := range b {
		b[i] = 'a'
	}
	return b
}

func TestParseJoinsAllProblems(t *testing.T) {
	_, err := task.Parse("t.yaml", []byte("id: A\nimage: x\nshell: no\nnetwork: host\nverify: {command: 'true'}\n"))
	require.Error(t, err)
	var pe *task.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, task.ParseError{File: "t.yaml", Line: 1, Column: 5, Field: "id", Msg: pe.Msg}, *pe, "the first problem in the document comes first")
	assert.Contains(t, err.Error(), "t.yaml:3:8: shell:")
	assert.Contains(t, err.Error(), "t.yaml:4:10: network:")
}

func TestLoadChecksFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "ctx"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")))

	tests := []struct {
		name, body, want string
	}{
		{"missing file", "files: {nope.sh: x}\n", `files["nope.sh"]: nope.sh: expected a file or directory at`},
		{"file where dir expected", "files: {plain/: /x/}\n", `files["plain/"]: plain/: expected a directory, found a file`},
		{"symlink escape", "files: {link: x}\n", "files.link: link: expected a path inside the task directory; it links to"},
		{"missing verify dir", "verify: {command: 'true', files: {tests/: /tests/}}\n", `verify.files["tests/"]: tests/: expected a file or directory`},
		{"missing dockerfile", "build: {context: ctx}\n", "build.dockerfile: ctx/Dockerfile: expected a file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "id: a\n" + tc.body
			if !containsKey(tc.body, "build") {
				doc += "image: x\n"
			}
			if !containsKey(tc.body, "verify") {
				doc += "verify: {command: 'true'}\n"
			}
			path := filepath.Join(dir, "task.yaml")
			require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
			_, err := task.Load(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path+":2:")
			assert.Contains(t, err.Error(), tc.want)

			// Parse does not look at the disk.
			_, err = task.Parse(path, []byte(doc))
			assert.NoError(t, err)
		})
	}
}

func containsKey(body, key string) bool { return len(body) >= len(key) && body[:len(key)] == key }

func TestValidateBuiltInCode(t *testing.T) {
	tk := &task.Task{ID: "a", Image: "x", Shell: "exec", Verify: task.Verify{Command: "true"}}
	require.NoError(t, tk.Validate())

	tk.Limits.Pids = -1
	err := tk.Validate()
	require.Error(t, err)
	assert.Equal(t, "limits.pids: expected a non-negative value (0 means the default)", err.Error())
}
