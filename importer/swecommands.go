package importer

import (
	"regexp"
	"strconv"
	"strings"
)

// SWE-agent's text-mode commands (its windowed tool bundles: the agent
// types them, SWE-agent's own scripts run them), mapped to what they did
// rather than handed to bash, which would run none of them:
//
//	open "<path>" [<line>]               read_file (the file becomes the open one)
//	goto <line>, scroll_up, scroll_down  noop: they move the view
//	create <path>                        write_file, empty (and opens it)
//	edit <start>:<end>                   edit_file: lines start..end of the open
//	<text>                               file replaced by text
//	end_of_edit
//	insert <line>                        edit_file: text inserted after line
//	<text>
//	end_of_insert
//	find_file, search_dir, search_file,  noop: they only read
//	filemap, decompile
//	str_replace_editor CMD PATH --…      the editor's call (edit_anthropic
//	                                     bundle as a command)
//	submit                               noop: the run's end
//
// A line that starts with none of them is a shell line, as SWE-agent runs
// it. An "edit" of another form is refused at import (an unknown tool).

var sweEditHead = regexp.MustCompile(`^edit\s+(\d+)\s*:\s*(\d+)\s*$`)
var sweInsertHead = regexp.MustCompile(`^insert\s+(\d+)\s*$`)

// sweCommand maps one text action; ok is false for a shell line. Numbers
// are float64, as arguments decoded from JSON are.
func sweCommand(action string) (c call, ok bool) {
	first, body, _ := strings.Cut(action, "\n")
	first = strings.TrimSpace(first)
	words := shellWords(first)
	if len(words) == 0 {
		return call{}, false
	}
	switch words[0] {
	case "open":
		if len(words) < 2 {
			return call{Name: "open", Args: map[string]any{}}, true
		}
		return call{Name: "open", Args: map[string]any{"path": words[1]}}, true
	case "goto", "scroll_up", "scroll_down", "find_file", "search_dir", "search_file", "filemap", "decompile":
		return call{Name: "swe_" + words[0], Args: map[string]any{"note": first}}, true
	case "str_replace_editor":
		return sweEditor(shellWords(action)), true
	case "create":
		args := map[string]any{}
		if len(words) > 1 {
			args["filename"] = words[1]
		}
		return call{Name: "create", Args: args}, true
	case "edit":
		m := sweEditHead.FindStringSubmatch(first)
		if m == nil {
			return call{Name: "edit (not <start>:<end>)", Args: map[string]any{"line": first}}, true
		}
		start, _ := strconv.Atoi(m[1])
		end, _ := strconv.Atoi(m[2])
		return call{Name: "swe_edit", Args: map[string]any{"range": []any{float64(start), float64(end)}, "text": sweBody(body, "end_of_edit")}}, true
	case "insert":
		m := sweInsertHead.FindStringSubmatch(first)
		if m == nil {
			return call{Name: "insert (not <line>)", Args: map[string]any{"line": first}}, true
		}
		n, _ := strconv.Atoi(m[1])
		return call{Name: "swe_insert", Args: map[string]any{"insert_line": float64(n), "text": sweBody(body, "end_of_insert")}}, true
	}
	return call{}, false
}

// sweEditor maps a text-mode str_replace_editor line (SWE-agent's
// edit_anthropic bundle run as a command): its subcommand and path, then
// --file_text, --old_str, --new_str, --insert_line N, --view_range A B.
// Anything else is refused at import as an unknown tool.
func sweEditor(words []string) call {
	bad := call{Name: "str_replace_editor (unparsed)", Args: map[string]any{"line": strings.Join(words, " ")}}
	if len(words) < 3 {
		return bad
	}
	args := map[string]any{"command": words[1], "path": words[2]}
	for i := 3; i < len(words); i++ {
		flag := strings.TrimPrefix(words[i], "--")
		switch {
		case (flag == "file_text" || flag == "old_str" || flag == "new_str") && i+1 < len(words):
			args[flag], i = words[i+1], i+1
		case flag == "insert_line" && i+1 < len(words):
			n, err := strconv.Atoi(words[i+1])
			if err != nil {
				return bad
			}
			args[flag], i = float64(n), i+1
		case flag == "view_range" && i+2 < len(words):
			a, err1 := strconv.Atoi(words[i+1])
			b, err2 := strconv.Atoi(words[i+2])
			if err1 != nil || err2 != nil {
				return bad
			}
			args[flag], i = []any{float64(a), float64(b)}, i+2
		default:
			return bad
		}
	}
	return call{Name: "str_replace_editor", Args: args}
}

// sweBody is the text of a multi-line command: its lines up to the end
// marker (alone on its line), each with its newline.
func sweBody(body, end string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		if strings.TrimSpace(l) == end {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// shellWords splits a command line on blanks and newlines, honouring
// quotes and backslashes as bash does (the agent's line is bash's before
// it is the tool's argv): in double quotes a backslash escapes only $, `,
// ", \ and newline; a backslash-newline joins lines.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote, esc := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
			if c == '\n' {
				continue // a line continuation
			}
			if quote == '"' && !strings.ContainsRune("$`\"\\", rune(c)) {
				cur.WriteByte('\\')
			}
			cur.WriteByte(c)
			in = true
		case c == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
