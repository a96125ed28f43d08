package rock

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// backslashReplace decodes b as UTF-8 the way Python's
// errors="backslashreplace" does: each byte that is not part of valid
// UTF-8 becomes the four characters \xHH. ROCK's sessions decode terminal
// output so.
func backslashReplace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&s, `\x%02x`, b[0])
			b = b[1:]
			continue
		}
		s.Write(b[:n])
		b = b[n:]
	}
	return s.String()
}

// decodeText decodes file content as Python's bytes.decode(encoding,
// errors) would for the encodings a trainer uses: UTF-8 (the default),
// ASCII and Latin-1. errors is strict (the default), replace, ignore or
// backslashreplace.
func decodeText(b []byte, encoding, errors string) (string, error) {
	enc := strings.ReplaceAll(strings.ToLower(encoding), "_", "-")
	switch errors {
	case "", "strict", "replace", "ignore", "backslashreplace", "surrogateescape":
	default:
		return "", fmt.Errorf("unknown error handler name %q", errors)
	}
	switch enc {
	case "", "utf-8", "utf8":
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	case "ascii", "us-ascii":
		for i, c := range b {
			if c >= 0x80 && (errors == "" || errors == "strict") {
				return "", fmt.Errorf("'ascii' codec can't decode byte 0x%02x in position %d: ordinal not in range(128)", c, i)
			}
		}
		return replaceInvalid(b, errors, func(c byte) bool { return c >= 0x80 }), nil
	default:
		return "", fmt.Errorf("unknown encoding: %s", encoding)
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	if errors == "" || errors == "strict" {
		i := firstInvalid(b)
		return "", fmt.Errorf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", b[i], i)
	}
	return replaceInvalid(b, errors, nil), nil
}

// firstInvalid is the offset of the first byte of b that is not valid UTF-8.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// replaceInvalid applies a non-strict error handler to the bytes of b that
// bad reports (nil: bytes that are not valid UTF-8).
func replaceInvalid(b []byte, errors string, bad func(byte) bool) string {
	var s strings.Builder
	for len(b) > 0 {
		n, invalid := 1, false
		if bad != nil {
			invalid = bad(b[0])
		} else {
			var r rune
			r, n = utf8.DecodeRune(b)
			invalid = r == utf8.RuneError && n <= 1
		}
		switch {
		case !invalid:
			s.Write(b[:n])
		case errors == "replace":
			s.WriteRune(utf8.RuneError)
		case errors == "backslashreplace" || errors == "surrogateescape":
			fmt.Fprintf(&s, `\x%02x`, b[0])
		}
		b = b[n:]
	}
	return s.String()
}
