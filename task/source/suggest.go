package source

import "strings"

// suggest returns "; did you mean "x"?" when a known name is within two
// edits of name, otherwise the list of accepted names.
func suggest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return "; did you mean \"" + best + "\"?"
	}
	return "; expected one of " + strings.Join(known, ", ")
}

// editDistance is the Levenshtein distance between a and b, in bytes;
// names are short, so the quadratic cost does not matter.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
