package prefix

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// shellState is a parsed dump of a session shell (dumpScript).
type shellState struct {
	// Shell is "bash" or "sh".
	Shell string
	// Vars maps each variable to its record: bash's `declare -p` line(s),
	// or sh's quoted value as `set` prints it.
	Vars map[string]string
	// Exported are sh's exported names (bash records carry -x).
	Exported map[string]bool
	// Sections are the other sections' text, by name.
	Sections map[string]string
	// Flags is $- when the dump started.
	Flags string
}

// dynamicVars change by themselves or per process, or are restored by
// other means (PWD by cd): never compared, never restored.
var dynamicVars = map[string]bool{
	"BASH": true, "BASHOPTS": true, "BASHPID": true, "BASH_ALIASES": true, "BASH_ARGC": true, "BASH_ARGV": true,
	"BASH_ARGV0": true, "BASH_CMDS": true, "BASH_COMMAND": true, "BASH_LINENO": true, "BASH_SOURCE": true,
	"BASH_SUBSHELL": true, "BASH_VERSINFO": true, "BASH_VERSION": true, "BASH_EXECUTION_STRING": true,
	"COLUMNS": true, "LINES": true, "COMP_WORDBREAKS": true, "DIRSTACK": true, "EPOCHREALTIME": true,
	"EPOCHSECONDS": true, "EUID": true, "FUNCNAME": true, "GROUPS": true, "HISTCMD": true, "LINENO": true,
	"PIPESTATUS": true, "PPID": true, "RANDOM": true, "SECONDS": true, "SHELLOPTS": true, "SRANDOM": true,
	"UID": true, "_": true, "PWD": true, "RBX_STEP": true,
}

func ignoredVar(name string) bool { return dynamicVars[name] || strings.HasPrefix(name, "__rbx") }

// parseDump parses dumpScript's output; text before the first section
// (a trace, a message) is ignored.
func parseDump(out string) (*shellState, error) {
	st := &shellState{Vars: map[string]string{}, Exported: map[string]bool{}, Sections: map[string]string{}}
	parts := strings.Split(out, "\036")
	if len(parts) < 2 {
		return nil, fmt.Errorf("shell state dump: no sections in %q", clipText(out, 200))
	}
	for _, p := range parts[1:] {
		name, body, _ := strings.Cut(p, "\n")
		switch {
		case name == "S":
			st.Shell = strings.TrimSpace(body)
		case strings.HasPrefix(name, "Z"):
			st.Flags = strings.TrimSpace(strings.TrimPrefix(name, "Z"))
			st.Sections["Z"] = ""
		default:
			st.Sections[name] = body
		}
	}
	if _, ok := st.Sections["Z"]; !ok || st.Shell == "" {
		return nil, fmt.Errorf("shell state dump: incomplete (%q)", clipText(out, 200))
	}
	var err error
	switch st.Shell {
	case "bash":
		st.Vars = parseDeclare(st.Sections["V"])
	case "sh":
		if st.Vars, err = parseAssignments(st.Sections["V"], ""); err != nil {
			return nil, err
		}
		exp, err := parseAssignments(st.Sections["P"], "export ")
		if err != nil {
			return nil, err
		}
		for n := range exp {
			st.Exported[n] = true
		}
	default:
		return nil, fmt.Errorf("shell state dump: unknown shell %q", st.Shell)
	}
	return st, nil
}

// parseDeclare splits `declare -p` output into one record per variable.
// Bash quotes control characters ($'...'), so a record is one line, but a
// line that does not start a record is kept with the one before it.
func parseDeclare(text string) map[string]string {
	vars := map[string]string{}
	var name string
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "declare -") {
			rest := line[len("declare -"):]
			_, rest, _ = strings.Cut(rest, " ") // the flags
			n := rest
			if i := strings.IndexAny(n, "=\n"); i >= 0 {
				n = n[:i]
			}
			name = n
			vars[name] = line
			continue
		}
		if name != "" && line != "" {
			vars[name] += line
		}
	}
	for n, rec := range vars {
		vars[n] = strings.TrimSuffix(rec, "\n")
	}
	return vars
}

// parseAssignments parses `NAME=word` records (each optionally after
// prefix), as POSIX shells print variables: the word is single- or
// double-quoted text that may span lines. It returns each name's word as
// printed (an `export NAME` without a value maps to "").
func parseAssignments(text, prefix string) (map[string]string, error) {
	vars := map[string]string{}
	for i := 0; i < len(text); {
		if text[i] == '\n' {
			i++
			continue
		}
		if !strings.HasPrefix(text[i:], prefix) {
			return nil, fmt.Errorf("shell variables: unexpected %q", clipText(text[i:], 60))
		}
		i += len(prefix)
		j := i
		for j < len(text) && (text[j] == '_' || isAlnum(text[j])) {
			j++
		}
		name := text[i:j]
		if name == "" {
			return nil, fmt.Errorf("shell variables: no name in %q", clipText(text[i:], 60))
		}
		if j >= len(text) || text[j] == '\n' {
			vars[name] = ""
			i = j
			continue
		}
		if text[j] != '=' {
			return nil, fmt.Errorf("shell variables: %s: expected '=' in %q", name, clipText(text[i:], 60))
		}
		end, err := wordEnd(text, j+1)
		if err != nil {
			return nil, fmt.Errorf("shell variables: %s: %w", name, err)
		}
		vars[name] = text[j+1 : end]
		i = end
	}
	return vars, nil
}

// wordEnd returns where the shell word starting at i ends (an unquoted
// newline or the end of text).
func wordEnd(text string, i int) (int, error) {
	for i < len(text) {
		switch c := text[i]; c {
		case '\n':
			return i, nil
		case '\'':
			k := strings.IndexByte(text[i+1:], '\'')
			if k < 0 {
				return 0, fmt.Errorf("unterminated quote")
			}
			i += k + 2
		case '"':
			i++
			for i < len(text) && text[i] != '"' {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(text) {
				return 0, fmt.Errorf("unterminated double quote")
			}
			i++
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(text), nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// options returns the option lines with xtrace and verbose as they were
// before the dump turned them off.
func (st *shellState) options() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(st.Sections["O"]), "\n") {
		for flag, name := range map[byte]string{'x': "xtrace", 'v': "verbose"} {
			if strings.HasSuffix(l, "o "+name) {
				sign := "+"
				if strings.IndexByte(st.Flags, flag) >= 0 {
					sign = "-"
				}
				l = "set " + sign + "o " + name
			}
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// names returns the sorted keys of m.
func names[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
