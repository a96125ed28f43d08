package e2e_test

import "bytes"

// dropLine returns b without its line that equals line.
func dropLine(b []byte, line string) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if string(l) != line {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func replaceAll(b []byte, old, repl string) []byte {
	return bytes.ReplaceAll(b, []byte(old), []byte(repl))
}
