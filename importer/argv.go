package importer

import (
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// foreignShell maps the shell tools of agents whose "shell" is not rbx's:
// Codex's {"command": ["bash", "-lc", "…"], "workdir", "timeout_ms"},
// {"cmd": "…"} and the like.
var foreignShell = Rule{Action: trajectory.KindShell, Args: map[string]string{
	"command": "command|cmd|script", "cwd": "workdir|cwd|dir", "timeout": "timeout_ms|timeout"}}

// argvCommand is the shell line an argv list runs: the script of a
// `bash -lc SCRIPT` (or sh -c, zsh -lc) as it is, any other argv quoted
// word by word.
func argvCommand(argv []any) (string, error) {
	words := make([]string, len(argv))
	for i, a := range argv {
		w, ok := a.(string)
		if !ok {
			return "", fmt.Errorf("argument for command: expected a list of strings, got %T at %d", a, i)
		}
		words[i] = w
	}
	if len(words) == 0 {
		return "", fmt.Errorf("argument for command: an empty list")
	}
	if len(words) == 3 && isShell(words[0]) && (words[1] == "-c" || words[1] == "-lc" || words[1] == "-ic") {
		return words[2], nil
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " "), nil
}

// isShell reports whether name is a POSIX shell (by path or name).
func isShell(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	switch base {
	case "bash", "sh", "zsh", "dash", "ash":
		return true
	}
	return false
}
