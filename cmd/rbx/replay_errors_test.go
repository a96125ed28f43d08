package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodTask = `id: t1
instruction: do it
image: rbx/busybox:latest
services: {otp: "http://127.0.0.1:8181"}
verify: {command: "true"}
`

func step(s string) string { return `{"id": "tr", "task": "task.yaml", "steps": [` + s + `]}` }

// TestReplayMalformedInputs: every malformed input gets one clear error
// naming what is wrong, and the usage exit code; nothing is started.
func TestReplayMalformedInputs(t *testing.T) {
	okStep := `{"action": "shell", "command": "echo hi"}`
	tests := []struct {
		name string
		task string // task.yaml content ("" = goodTask)
		traj string // trajectory.json content
		file string // trajectory file name (default trajectory.json)
		args []string
		want []string // substrings of the error
	}{
		{name: "bad JSON", traj: `{"id": "tr", "steps": [`, want: []string{"trajectory.json:1"}},
		{name: "unknown action", traj: step(`{"action": "teleport"}`), want: []string{"steps[0].action", "teleport"}},
		{name: "missing field", traj: step(`{"action": "shell"}`), want: []string{"steps[0].command"}},
		{name: "wrong type", traj: step(`{"action": "shell", "command": "ls", "timeout": true}`), want: []string{"steps[0].timeout"}},
		{name: "unknown field", traj: step(`{"action": "shell", "comand": "ls"}`), want: []string{"comand"}},
		{name: "field of another action", traj: step(`{"action": "shell", "command": "ls", "content": "x"}`), want: []string{"steps[0].content", "shell"}},
		{name: "negative k", traj: step(okStep), args: []string{"--to", "-1"}, want: []string{"k = -1"}},
		{name: "k beyond T", traj: step(okStep), args: []string{"--to", "5"}, want: []string{"k = 5", "1 steps"}},
		{name: "k after a non-checkpoint", traj: step(`{"action": "shell", "command": "a", "checkpoint": false}, ` + okStep), args: []string{"--to", "1"}, want: []string{"checkpoint"}},
		{name: "missing task", traj: `{"id": "tr", "task": "nope.yaml", "steps": [` + okStep + `]}`, want: []string{"nope.yaml"}},
		{name: "unknown service", traj: step(`{"action": "http", "method": "GET", "url": "{{services.db}}/x"}`), want: []string{"steps[0]", "services.db"}},
		{name: "undefined variable", traj: step(`{"action": "shell", "command": "echo {{vars.otp}}"}`), want: []string{"steps[0].command", "vars.otp"}},
		{name: "bad mode", traj: step(`{"action": "write_file", "path": "a", "content": "x", "mode": "rwx"}`), want: []string{"steps[0].mode"}},
		{name: "no steps", traj: `{"id": "tr", "task": "task.yaml", "steps": []}`, want: []string{"steps"}},
		{name: "task without image", task: "id: t1\ninstruction: x\nverify: {command: \"true\"}\n", traj: step(okStep), want: []string{"task.yaml", "image"}},
		{name: "task bad yaml field", task: goodTask + "limits: {cpus: lots}\n", traj: step(okStep), want: []string{"task.yaml", "cpus"}},
		{name: "jsonl bad line", file: "runs.jsonl", traj: step(okStep) + "\n" + `{"id": "b", "task": "task.yaml", "steps": [{"action": 1}]}` + "\n", want: []string{"runs.jsonl:2"}},
		{name: "jsonl needs --id", file: "runs.jsonl", traj: step(okStep) + "\n" + strings.Replace(step(okStep), `"tr"`, `"tr2"`, 1) + "\n", want: []string{"--id"}},
		{name: "jsonl unknown --id", file: "runs.jsonl", traj: step(okStep) + "\n", args: []string{"--id", "zz"}, want: []string{"zz"}},
		{name: "missing trajectory file", file: "-", want: []string{"missing.json"}},
		{name: "bad --output", traj: step(okStep), args: []string{"--output", "yaml"}, want: []string{"--output"}},
		{name: "bad --compare", traj: step(okStep), args: []string{"--compare", "fuzzy"}, want: []string{"compare"}},
		{name: "bad --service", traj: step(okStep), args: []string{"--service", "otp"}, want: []string{"NAME=URL"}},
		{name: "bad --runtime", traj: step(okStep), args: []string{"--runtime", "vm"}, want: []string{"--runtime"}},
		{name: "unknown flag", traj: step(okStep), args: []string{"--frobnicate"}, want: []string{"frobnicate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			taskText := tc.task
			if taskText == "" {
				taskText = goodTask
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte(taskText), 0o644))
			name := tc.file
			switch name {
			case "":
				name = "trajectory.json"
			case "-":
				name = "missing.json"
			}
			if tc.file != "-" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(tc.traj), 0o644))
			}
			var out, errOut bytes.Buffer
			args := append([]string{"replay", filepath.Join(dir, name), "--runtime", "local"}, tc.args...)
			code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUsage, code, "stderr: %s", errOut.String())
			msg := errOut.String()
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
			assert.Equal(t, 1, strings.Count(msg, "rbx: "), "one error line: %s", msg)
			assert.Empty(t, out.String(), "nothing on stdout")
			assert.NotContains(t, msg, "panic")
		})
	}
}
