package replayer

import "strings"

// diffContext is how many lines a divergence shows around the first one
// that differs.
const diffContext = 3

// diffLineMax cuts a shown line (a minified file, a progress bar).
const diffLineMax = 200

// OutputDiff locates where a live output first differs from the recorded
// one, in the compared form (normalised unless the comparison is exact):
// a `pip install` or a `git diff` differs at the top, where the tails
// show nothing.
type OutputDiff struct {
	// Line is the first differing line, 1-based.
	Line int `json:"line"`
	// From is the number of the first line shown on both sides.
	From int `json:"from"`
	// Expected and Got are lines From… of the recorded and the live
	// output; a side that ended before Line shows fewer.
	Expected []string `json:"expected"`
	Got      []string `json:"got"`
}

// Diff is the first difference of recorded and live under p, nil when
// they compare equal (or p is CompareIgnore).
func Diff(p Comparison, recorded, live string) *OutputDiff {
	if p == CompareIgnore || Equal(p, recorded, live) {
		return nil
	}
	a, b := strings.Split(Canonical(p, recorded), "\n"), strings.Split(Canonical(p, live), "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-diffContext, 0)
	return &OutputDiff{Line: i + 1, From: from + 1, Expected: window(a, from, i), Got: window(b, from, i)}
}

// window is lines[from : at+diffContext+1], each cut at diffLineMax.
func window(lines []string, from, at int) []string {
	to := min(at+diffContext+1, len(lines))
	if from >= to {
		return []string{}
	}
	out := make([]string, 0, to-from)
	for _, l := range lines[from:to] {
		if len(l) > diffLineMax {
			l = l[:diffLineMax] + "…"
		}
		out = append(out, l)
	}
	return out
}
