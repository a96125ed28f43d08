package replayer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyBytes(t *testing.T) {
	tests := map[string]string{
		"ls -la\n":   "ls -la\r",
		"C-c":        "\x03",
		"C-d":        "\x04",
		"C-[":        "\x1b",
		"Escape":     "\x1b",
		"Enter":      "\r",
		"Up":         "\x1b[A",
		"M-x":        "\x1bx",
		"C-M-a":      "\x1b\x01",
		":wq\n":      ":wq\r",
		"q":          "q",
		"C-c hello":  "C-c hello",
		"Enterprise": "Enterprise",
		"":           "",
	}
	for in, want := range tests {
		assert.Equal(t, want, string(keyBytes(in)), "%q", in)
	}
}

func TestTermText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[1;32mroot@4f3a9c2b1e0d\x1b[0m:\x1b[1;34m/app\x1b[0m# ls\r\n", "root@HOST:/app# ls"},
		{"Downloading  10%\rDownloading  55%\rDownloading 100%\r\ndone\r\n", "Downloading 100%\ndone"},
		{"abc\b\bX\r\n\a", "aX"},
		{"\r\n\r\n  x  \r\n\r\n", "  x"},
		{"\x1b]0;title\x07prompt$ ", "prompt$"},
		{`127.0.0.1 - - [06/Dec/2026 07:50:01] "GET / HTTP/1.1" 200 -`, `127.0.0.1 - - [<time>] "GET / HTTP/1.1" 200 -`},
		{"at 2026-12-06T07:50:01.123Z and Sun Dec  6 07:50:01 UTC 2026", "at <time> and <time>"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, TermText(tc.in), "%q", tc.in)
	}
}

func TestShown(t *testing.T) {
	got := "root@HOST:/app# python3\nPython 3.11.2 (main, Mar 13 2023)\n>>> def f(x):\n...     return 2*x\n...\n>>> f(21)\n42\n>>>"
	assert.True(t, shown(">>> f(21)\n42\n>>>", got))
	assert.True(t, shown("Python 3.11.2 (main, Mar 13 2023)\n\n>>>", got), "blank lines aside")
	assert.False(t, shown("42\n>>> f(21)", got), "out of order")
	assert.False(t, shown("43", got))
	assert.True(t, shown("python3\nType \"help\"", "(venv) /app # python3\nType \"help\""), "another prompt on its left")
	assert.False(t, shown("thon3", "/app # python3"), "whole words only")
	assert.True(t, shown("Downloading 45%", "Downloading 100%"), "the last line, written on since")
	assert.False(t, shown("Downloading 45%\nok", "Downloading 100%\nfailed"))
}
