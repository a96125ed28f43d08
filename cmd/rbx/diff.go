package main

import (
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/replayer"
)

// writeDiff prints where an output divergence starts: the first differing
// line, marked, with the lines around it on each side.
func writeDiff(w io.Writer, d *replayer.OutputDiff) {
	fmt.Fprintf(w, "  first difference at line %d:\n", d.Line)
	side := func(name string, lines []string) {
		fmt.Fprintf(w, "    %s:\n", name)
		if len(lines) < d.Line-d.From+1 {
			defer fmt.Fprintf(w, "      (ends before line %d)\n", d.Line)
		}
		for i, l := range lines {
			n, mark := d.From+i, " "
			if n == d.Line {
				mark = ">"
			}
			fmt.Fprintf(w, "    %s %4d  %s\n", mark, n, l)
		}
	}
	side("expected", d.Expected)
	side("actual", d.Got)
}
