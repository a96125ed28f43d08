package importer

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Report says what an import produced and what it could not map.
type Report struct {
	// Format is the format the input was read as.
	Format Format `json:"format"`
	// Trajectories is how many trajectories were produced.
	Trajectories int `json:"trajectories"`
	// Steps counts the steps produced, Actions counts them by kind.
	Steps   int                     `json:"steps"`
	Actions map[trajectory.Kind]int `json:"actions"`
	// UnknownTools counts the calls of tools the map does not know; each is
	// kept as a noop step whose note names the tool.
	UnknownTools map[string]int `json:"unknown_tools,omitempty"`
	// Warnings are calls that could not be mapped and other remarks.
	Warnings []string `json:"warnings,omitempty"`
}

func (r *Report) unknown(tool string) {
	if r.UnknownTools == nil {
		r.UnknownTools = map[string]int{}
	}
	r.UnknownTools[tool]++
}

func (r *Report) warn(msg string) { r.Warnings = append(r.Warnings, msg) }

func (r *Report) count(t *trajectory.Trajectory) {
	if r.Actions == nil {
		r.Actions = map[trajectory.Kind]int{}
	}
	r.Trajectories++
	for _, s := range t.Steps {
		r.Steps++
		r.Actions[s.Action]++
	}
}

// Summary is one line: steps by kind and the unknown tools with counts.
func (r *Report) Summary() string {
	var parts []string
	for _, k := range trajectory.Kinds {
		if n := r.Actions[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	s := fmt.Sprintf("%s: %d trajectories, %d steps (%s)", r.Format, r.Trajectories, r.Steps, strings.Join(parts, ", "))
	if len(r.UnknownTools) > 0 {
		var u []string
		for _, name := range slices.Sorted(maps.Keys(r.UnknownTools)) {
			u = append(u, fmt.Sprintf("%s ×%d", name, r.UnknownTools[name]))
		}
		s += "; unknown tools kept as noop steps: " + strings.Join(u, ", ")
	}
	return s
}
