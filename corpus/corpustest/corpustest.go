// Package corpustest writes synthetic corpora for tests and benchmarks:
// N small tasks (the busybox image, a three-step shell reference each),
// laid out as `rbx serve --tasks DIR` finds them.
package corpustest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Image is the sandbox image every generated task uses.
const Image = "rbx/busybox:latest"

// ID is the id of the i-th generated task: zero-padded so that ids sort
// in generation order.
func ID(i int) string { return fmt.Sprintf("gen-%05d", i) }

const taskYAML = `id: %s
instruction: Write the file done.txt holding the task's number.
image: ` + Image + `
workdir: /workspace
shell: session
limits:
  step_timeout: 10s
network: none
files:
  workspace/: /workspace/
verify:
  command: sh .rbx-tests/test.sh
  files:
    tests/: .rbx-tests/
  timeout: 10s
`

// Write writes n tasks under dir, each in its own directory ID(i)/ with
// task.yaml, trajectory.json (ids ID(i) and ID(i)+"-ref"), a workspace/
// the sandbox starts with and the verifier's tests/.
func Write(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		if err := writeOne(dir, i); err != nil {
			t.Fatalf("corpustest: %v", err)
		}
	}
}

func writeOne(dir string, i int) error {
	id := ID(i)
	sub := filepath.Join(dir, id)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"task.yaml":           fmt.Sprintf(taskYAML, id),
		"workspace/README.md": "Write done.txt.\n",
		"tests/test.sh":       fmt.Sprintf("grep -qx %d done.txt\n", i),
	}
	for name, content := range files {
		p := filepath.Join(sub, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(trajectory(id, i), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(sub, "trajectory.json"), data, 0o644)
}

// trajectory is a three-step shell reference: look, write, check.
func trajectory(id string, i int) map[string]any {
	step := func(cmd, out string) map[string]any {
		return map[string]any{"action": "shell", "command": cmd,
			"observation": map[string]any{"output": out, "exit_code": 0}}
	}
	return map[string]any{
		"id":   id + "-ref",
		"task": "task.yaml",
		"steps": []any{
			step("ls", "README.md\n"),
			step(fmt.Sprintf("echo %d > done.txt", i), ""),
			step("cat done.txt", fmt.Sprintf("%d\n", i)),
		},
	}
}
