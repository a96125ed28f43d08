package replayer

import (
	"strings"
)

// tmuxKeys are the key names tmux's send-keys reads, and the bytes a
// terminal sends for each (xterm's, as the programs' terminfo expects).
var tmuxKeys = map[string]string{
	"Enter": "\r", "Escape": "\x1b", "Esc": "\x1b", "Tab": "\t", "BTab": "\x1b[Z", "Space": " ",
	"BSpace": "\x7f", "Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Home": "\x1b[H", "End": "\x1b[F", "PageUp": "\x1b[5~", "PPage": "\x1b[5~", "PgUp": "\x1b[5~",
	"PageDown": "\x1b[6~", "NPage": "\x1b[6~", "PgDn": "\x1b[6~", "DC": "\x1b[3~", "Delete": "\x1b[3~",
	"IC": "\x1b[2~", "Insert": "\x1b[2~",
	"F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS", "F5": "\x1b[15~", "F6": "\x1b[17~",
	"F7": "\x1b[18~", "F8": "\x1b[19~", "F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~", "F12": "\x1b[24~",
}

// keyBytes is what typing keys sends to the terminal, as tmux's send-keys
// reads one argument: a key name alone — one of tmuxKeys, C-x (control),
// M-x (meta: Escape then x), or combinations such as C-M-x — is that key;
// anything else is literal text, where a newline is Enter.
func keyBytes(keys string) []byte {
	if b, ok := namedKey(keys); ok {
		return []byte(b)
	}
	return []byte(strings.ReplaceAll(keys, "\n", "\r"))
}

// namedKey is the bytes of key name k, if k is one: a name of tmuxKeys
// or one character, after modifiers C- (control), M- (meta: Escape
// first) and S- (shift, which the names' bytes already carry), in any
// order; a lone character is a key only with a modifier.
func namedKey(k string) (string, bool) {
	if b, ok := tmuxKeys[k]; ok {
		return b, true
	}
	ctrl, meta, mods := false, false, false
	for len(k) > 2 && k[1] == '-' && strings.ContainsRune("CMS", rune(k[0])) {
		ctrl, meta, mods = ctrl || k[0] == 'C', meta || k[0] == 'M', true
		k = k[2:]
	}
	if !mods {
		return "", false
	}
	b, ok := tmuxKeys[k]
	switch {
	case ok && ctrl:
		return "", false
	case ok:
	case len(k) == 1 && ctrl:
		if b, ok = control(k); !ok {
			return "", false
		}
	case len(k) == 1:
		b = k
	default:
		return "", false
	}
	if meta {
		b = "\x1b" + b
	}
	return b, true
}

// control is the byte of Ctrl with key k (one letter, or @ [ \ ] ^ _ ?,
// or Space).
func control(k string) (string, bool) {
	if k == "Space" {
		return "\x00", true
	}
	if len(k) != 1 {
		return "", false
	}
	c := k[0]
	switch {
	case c >= 'a' && c <= 'z':
		return string(rune(c - 'a' + 1)), true
	case c >= 'A' && c <= 'Z':
		return string(rune(c - 'A' + 1)), true
	case c == '?':
		return "\x7f", true
	case c >= '@' && c <= '_':
		return string(rune(c - '@')), true
	}
	return "", false
}
