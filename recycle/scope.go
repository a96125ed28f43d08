package recycle

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// UpperDirs lists the directories of an overlay's upper layer (a host
// path: the engine's GraphDriver UpperDir) as paths of the sandbox's root
// filesystem, for a scoped recycle (agent.Scope). It must be read once
// every process of the sandbox is dead (the agent says agent.Quiet).
// Symlinks are not followed; whiteouts and files are not directories.
func UpperDirs(upper string) ([][]byte, error) {
	var dirs [][]byte
	err := filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == upper {
			return nil
		}
		rel, err := filepath.Rel(upper, p)
		if err != nil {
			return err
		}
		dirs = append(dirs, []byte("/"+filepath.ToSlash(rel)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("upper layer %s: %w", upper, err)
	}
	return dirs, nil
}

// ProvenIn is Proven limited to the entries a walk under scope lists (nil:
// all of them), and the index in the fresh listing of each entry sent
// (the changes report's missing indexes are into what was sent).
func (f *Fresh) ProvenIn(scope *agent.Scope) (agent.Proven, []int) {
	if scope == nil {
		return f.Proven(), nil
	}
	idx := scope.Filter(f.base.entries)
	fps := make([]agent.FP, len(idx))
	for j, i := range idx {
		fps[j] = f.fp(i)
	}
	return agent.Proven{Key: f.key, FPs: fps}, idx
}

// PlanIn is Plan for a changes report answering ProvenIn: its missing
// indexes are mapped back through idx (nil: sent whole).
func (f *Fresh) PlanIn(ch agent.Report, idx []int) (Plan, error) {
	if idx != nil {
		missing := make([]int, len(ch.Missing))
		for j, m := range ch.Missing {
			if m < 0 || m >= len(idx) {
				return Plan{}, fmt.Errorf("changes: missing index %d of %d sent", m, len(idx))
			}
			missing[j] = idx[m]
		}
		ch.Missing = missing
	}
	return f.Plan(ch)
}
