package tools

import "github.com/rbx-sandbox/rbx/trajectory"

// Kinds are the actions a policy may call, in schema order (noop teaches
// nothing, so it is no tool).
var Kinds = []trajectory.Kind{trajectory.KindShell, trajectory.KindWriteFile, trajectory.KindReadFile,
	trajectory.KindEditFile, trajectory.KindHTTP}

// Tool is an OpenAI function tool definition.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes one callable action.
type Function struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// descriptions say what each tool does.
var descriptions = map[trajectory.Kind]string{
	trajectory.KindShell:     "Run a shell command in the sandbox's persistent shell.",
	trajectory.KindWriteFile: "Write a file.",
	trajectory.KindReadFile:  "Read a file, optionally a line range.",
	trajectory.KindEditFile:  "Replace old with new, or insert text at insert_line.",
	trajectory.KindHTTP:      "Call one of the task's services.",
	trajectory.KindKeys: "Type into the terminal, as tmux send-keys does: text (\\n is Enter) or one key name (C-c, C-d, Escape, Up...); " +
		"then wait up to duration for its output, which is the observation (the screen for a full-screen program).",
}

// TerminalKinds are the actions of a policy that types into a terminal
// (a task whose shell is "terminal"): keystrokes.
var TerminalKinds = []trajectory.Kind{trajectory.KindKeys}

// For is the actions a policy may call in a task: TerminalKinds when it
// types into a terminal, else Kinds.
func For(terminal bool) []trajectory.Kind {
	if terminal {
		return TerminalKinds
	}
	return Kinds
}

// Schemas returns the function schemas of the actions in Kinds.
func Schemas() []Tool { return SchemasOf(Kinds) }

// SchemasOf returns the function schemas of the actions kinds.
func SchemasOf(kinds []trajectory.Kind) []Tool {
	out := make([]Tool, 0, len(kinds))
	for _, k := range kinds {
		props := map[string]any{}
		required := []string{}
		for _, a := range k.Args() {
			props[a.Name] = schema(a)
			if a.Required {
				required = append(required, a.Name)
			}
		}
		out = append(out, Tool{Type: "function", Function: Function{Name: string(k), Description: descriptions[k],
			Parameters: map[string]any{"type": "object", "properties": props, "required": required}}})
	}
	return out
}

// schema is the JSON schema of one argument.
func schema(a trajectory.Arg) map[string]any {
	s := map[string]any{"description": a.Doc}
	switch a.Type {
	case trajectory.ArgInt:
		s["type"] = "integer"
	case trajectory.ArgBool:
		s["type"] = "boolean"
	case trajectory.ArgStringMap:
		s["type"], s["additionalProperties"] = "object", map[string]any{"type": "string"}
	case trajectory.ArgRange:
		s["type"], s["properties"] = "object", map[string]any{
			"start": map[string]any{"type": "integer"}, "end": map[string]any{"type": "integer"}}
	default:
		s["type"] = "string"
	}
	return s
}
