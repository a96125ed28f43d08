package prefilter

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNothingToJudge means Find found no trajectory it could judge: a run
// over it would be a green run that checked nothing.
var ErrNothingToJudge = errors.New("no trajectory to prefilter")

// Usable returns ErrNothingToJudge, with what was found and how to make it
// usable, when f has no item to judge.
func (f *Found) Usable(paths []string) error {
	if len(f.Items) > 0 {
		return nil
	}
	var b strings.Builder
	for _, fr := range f.Foreign {
		b.WriteString("\n  " + fr.Describe())
	}
	if len(f.Unmatched()) > 0 {
		b.WriteString("\n" + Hint(paths))
	}
	if len(f.Foreign) == 0 {
		b.WriteString("\n  expected native trajectories (*.json with \"steps\", *.jsonl) or trajectories in a format `rbx import` knows (OpenAI messages, ATIF, SWE-agent .traj, mini-swe-agent, OpenHands)")
	}
	return fmt.Errorf("%w under %s: found %s%s", ErrNothingToJudge, strings.Join(paths, " "), f.Summary(), b.String())
}

// Summary counts what was found, e.g. "2 openhands trajectories (no task
// known), 1 task file, 3 other files (README.md, SOURCE, …)".
func (f *Found) Summary() string {
	var parts []string
	native := 0
	for _, it := range f.Items {
		if !f.isForeign(it.Key.File) {
			native++
		}
	}
	if native > 0 {
		parts = append(parts, plural(native, "native trajectory", "native trajectories"))
	}
	byFormat := map[string]int{}
	var formats []string
	for _, fr := range f.Foreign {
		k := string(fr.Format)
		if fr.Task == "" {
			k += " (no task known)"
		}
		if byFormat[k] == 0 {
			formats = append(formats, k)
		}
		byFormat[k]++
	}
	for _, k := range formats {
		name, note, _ := strings.Cut(k, " ")
		parts = append(parts, strings.TrimSpace(plural(byFormat[k], name+" trajectory", name+" trajectories")+" "+note))
	}
	parts = append(parts, plural(len(f.Tasks), "task file", "task files"))
	if n := len(f.Other); n > 0 {
		var names []string
		for _, o := range f.Other {
			if b := filepath.Base(o); !slices.Contains(names, b) {
				names = append(names, b)
			}
		}
		if len(names) > 3 {
			names = append(names[:3], "…")
		}
		parts = append(parts, plural(n, "other file", "other files")+" ("+strings.Join(names, ", ")+")")
	}
	return strings.Join(parts, ", ")
}

func (f *Found) isForeign(file string) bool {
	for _, fr := range f.Foreign {
		if fr.File == file {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
