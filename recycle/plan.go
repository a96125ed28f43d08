// Package recycle is the host side of in-place recycling: it records a
// sandbox's fresh listing (shared by shape) and the fingerprints of its
// last proven one (Fresh), plans the restore from the agent's changes
// report, and verifies what the agent reports after applying it. Backends
// supply the content (see the docker backend).
package recycle

import (
	"bytes"
	"slices"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// Plan is what brings a sandbox back to its baseline listing.
type Plan struct {
	// Remove are entries the baseline lacks (none inside another).
	Remove [][]byte
	// Create are baseline entries to recreate (content for files comes
	// from the backend), parents first.
	Create []agent.Entry
	// Meta are baseline entries to give back their owner, mode and mtime:
	// changed directories, and the parents of every removed or created
	// entry (their mtime moved).
	Meta []agent.Entry
	// Proven are entries listed for the first time and taken as they are:
	// the image's, untouched (see FromScoped). Nothing is done to them.
	Proven []agent.Entry
}

// Empty reports whether the plan does nothing.
func (p Plan) Empty() bool { return len(p.Remove)+len(p.Create)+len(p.Meta) == 0 }

// inside reports whether path is under the last removed entry (removals
// come in path order, so a removed tree's entries follow its root).
func inside(removed [][]byte, path string) bool {
	if len(removed) == 0 {
		return false
	}
	last := removed[len(removed)-1]
	return bytes.HasPrefix([]byte(path), append(slices.Clip(last), '/'))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
