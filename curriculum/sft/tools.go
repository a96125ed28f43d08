package sft

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

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func fn(name, desc string, required []string, props map[string]any) Tool {
	return Tool{Type: "function", Function: Function{Name: name, Description: desc,
		Parameters: map[string]any{"type": "object", "properties": props, "required": required}}}
}

// Tools returns the function schemas of the replayable actions.
func Tools() []Tool {
	return []Tool{
		fn("shell", "Run a shell command in the sandbox's persistent shell.", []string{"command"}, map[string]any{
			"command": str("shell source"), "cwd": str("directory for this command"),
			"timeout": str("duration, e.g. 30s"), "env": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}}),
		fn("write_file", "Write a file.", []string{"path"}, map[string]any{
			"path": str("file path"), "content": str("text content"), "content_b64": str("binary content, base64"), "mode": str("octal mode, e.g. 0755")}),
		fn("read_file", "Read a file, optionally a line range.", []string{"path"}, map[string]any{
			"path": str("file path"), "range": map[string]any{"type": "object", "properties": map[string]any{
				"start": map[string]any{"type": "integer"}, "end": map[string]any{"type": "integer"}}}}),
		fn("edit_file", "Replace old with new, or insert text at insert_line.", []string{"path"}, map[string]any{
			"path": str("file path"), "old": str("text to replace"), "new": str("replacement"),
			"insert_line": map[string]any{"type": "integer"}, "text": str("text to insert")}),
		fn("http", "Call one of the task's services.", []string{"method", "url"}, map[string]any{
			"method": str("GET, POST, PUT, PATCH, DELETE or HEAD"), "url": str("URL under a declared service"),
			"headers": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}, "body": str("request body")}),
	}
}
