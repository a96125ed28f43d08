package source

import (
	"regexp"
	"strconv"
	"strings"
)

// Segment is one step of a field path: a member name or an array index.
type Segment struct {
	IsKey bool
	Key   string
	Index int
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Key appends member key to path: "limits" + "memory" is "limits.memory";
// keys that are not plain names are quoted: files["tests/"].
func Key(path, key string) string {
	if plainKey.MatchString(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// Index appends array index i to path: "steps" + 3 is "steps[3]".
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// SplitPath parses a path built by Key and Index back into segments. It
// stops at the first malformed segment.
func SplitPath(path string) []Segment {
	var segs []Segment
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			rest := path[1:]
			if strings.HasPrefix(rest, `"`) {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil || !strings.HasPrefix(rest[len(q):], "]") {
					return segs
				}
				key, _ := strconv.Unquote(q)
				segs = append(segs, Segment{IsKey: true, Key: key})
				path = rest[len(q)+1:]
				continue
			}
			end := strings.IndexByte(rest, ']')
			i, err := strconv.Atoi(rest[:max(end, 0)])
			if end < 0 || err != nil {
				return segs
			}
			segs = append(segs, Segment{Index: i})
			path = rest[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			segs = append(segs, Segment{IsKey: true, Key: path[:end]})
			path = path[end:]
		}
	}
	return segs
}
