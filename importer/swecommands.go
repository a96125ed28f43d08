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
//	find_file, search_dir, search_file   noop: they only read
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
	case "goto", "scroll_up", "scroll_down", "find_file", "search_dir", "search_file":
		return call{Name: "swe_" + words[0], Args: map[string]any{"note": first}}, true
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

// shellWords splits a command line on blanks, honouring single and
// double quotes and backslashes as SWE-agent's argument parsing does.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote, esc := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			cur.WriteByte(c)
			esc, in = false, true
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
		case c == ' ' || c == '\t':
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
