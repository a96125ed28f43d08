package recycle

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// Plan turns a recycle's changes report (entries new or changed since the
// last proven listing, missing indexes) into the restore plan, the same
// way Diff does from whole listings.
func (f *Fresh) Plan(ch agent.Report) (Plan, error) {
	var p Plan
	touched := map[string]bool{}
	created := map[int]bool{}
	// restore recreates the fresh entry i and, for a hard-linked file,
	// every path of its inode (as links of the first): its link count
	// and group are the fresh ones again.
	restore := func(i int) error {
		for _, j := range f.group(i) {
			b := f.entry(j)
			if created[j] {
				continue
			}
			if b.Type == agent.TypeSocket {
				return fmt.Errorf("%q: a socket cannot be restored", b.Path)
			}
			created[j] = true
			p.Create = append(p.Create, b)
			touched[string(agent.Parent(b.Path))] = true
			if b.Type == agent.TypeDir {
				touched[string(b.Path)] = true
			}
		}
		return nil
	}
	var added [][]byte
	for _, c := range ch.Entries {
		path := string(c.Path)
		i, ok := f.base.index[path]
		if !ok {
			added = append(added, c.Path)
			continue
		}
		b := f.entry(i)
		if f.takeUntouched(i, c) {
			p.Proven = append(p.Proven, c)
			continue
		}
		switch {
		case c.Type == b.Type && b.Type == agent.TypeDir:
			touched[path] = true
		case b.MountRoot && b.Type != agent.TypeFile:
			if b.Type != agent.TypeDir {
				return Plan{}, fmt.Errorf("%q: a changed mount root of type %s cannot be restored", path, b.Type)
			}
			touched[path] = true // a mount root is never replaced
		default:
			if err := restore(i); err != nil {
				return Plan{}, err
			}
		}
	}
	for _, i := range ch.Missing {
		if i >= len(f.fps) {
			return Plan{}, fmt.Errorf("changes: missing index %d of %d", i, len(f.fps))
		}
		if err := restore(i); err != nil {
			return Plan{}, err
		}
	}
	// A directory recreated is empty: every fresh entry under it is
	// recreated too. A full walk reports them missing already; a scoped
	// one (agent.Scope) does not list the tree of a directory that is no
	// longer one in the upper layer.
	if err := f.recreateTrees(&p, restore); err != nil {
		return Plan{}, err
	}
	slices.SortFunc(added, bytes.Compare)
	for _, a := range added {
		if inside(p.Remove, string(a)) {
			continue
		}
		p.Remove = append(p.Remove, a)
		touched[string(agent.Parent(a))] = true
	}
	agent.SortByPath(p.Create)
	for _, path := range sortedKeys(touched) {
		if b, ok := f.Lookup([]byte(path)); ok && b.Type == agent.TypeDir {
			p.Meta = append(p.Meta, b)
		}
	}
	return p, nil
}

// Accept verifies the agent's report after applying plan — no process or
// IPC object left, every path the plan set listed with its fresh shape
// and mtime, every file sent read back with the SHA-256 sent (path → hex)
// — and makes the listed entries the proven ones. On error nothing
// changes, and the sandbox must go.
func (f *Fresh) Accept(plan Plan, after agent.Report, sent map[string]string) error {
	if after.State.Others != 0 || after.State.IPC != 0 {
		return fmt.Errorf("%d processes and %d IPC objects left", after.State.Others, after.State.IPC)
	}
	// listed maps each listed path to its index in after.Entries; at, to
	// its index in the fresh listing.
	listed := make(map[string]int, len(after.Entries))
	at := make([]int, len(after.Entries))
	for j, e := range after.Entries {
		i, ok := f.base.index[string(e.Path)]
		if !ok {
			return fmt.Errorf("%q: not in the fresh listing", e.Path)
		}
		if _, dup := listed[string(e.Path)]; dup {
			return fmt.Errorf("%q: listed twice", e.Path)
		}
		if err := sameShape(f.entry(i), e); err != nil {
			return fmt.Errorf("%q: %w", e.Path, err)
		}
		listed[string(e.Path)], at[j] = j, i
	}
	for _, b := range slices.Concat(plan.Create, plan.Meta) {
		i, ok := listed[string(b.Path)]
		if !ok {
			return fmt.Errorf("%q: set by the plan but not listed after it", b.Path)
		}
		if e := after.Entries[i]; b.Mtime != 0 && e.Mtime != b.Mtime {
			return fmt.Errorf("%q: mtime %d after the restore, fresh %d", e.Path, e.Mtime, b.Mtime)
		}
	}
	if err := f.sameInodes(plan, after, listed); err != nil {
		return err
	}
	if err := sameSums(after.Sums, sent); err != nil {
		return err
	}
	for _, e := range plan.Proven {
		i, ok := f.base.index[string(e.Path)]
		if !ok {
			return fmt.Errorf("%q: taken as untouched but not in the fresh listing", e.Path)
		}
		f.prove(i, e)
	}
	for j, e := range after.Entries {
		f.fps[at[j]] = f.key.Fingerprint(e)
		if f.unproven != nil {
			f.unproven[at[j]] = false
		}
	}
	return nil
}

// takeUntouched reports whether the changed entry c at the fresh index i is
// one of the image's entries this sandbox never listed (FromScoped), of the
// fresh shape, which the upper layer does not hold: any write, chmod,
// chown, link, rename or deletion would have copied it up, so it is as the
// container was made (its mtime, inode and ctime included) and becomes
// proven as listed (Accept).
func (f *Fresh) takeUntouched(i int, c agent.Entry) bool {
	if f.unproven == nil || !f.unproven[i] || f.untouched == nil || f.base.entries[i].MountRoot {
		return false
	}
	return sameShape(f.base.entries[i], c) == nil && f.untouched(c.Path)
}

// sameInodes checks that every hard link the plan made is listed as the
// inode of the path it links to (their link count, compared by sameShape,
// is the fresh one).
func (f *Fresh) sameInodes(plan Plan, after agent.Report, listed map[string]int) error {
	for _, b := range plan.Create {
		to := f.HardLinkOf(b.Path)
		if to == nil {
			continue
		}
		l, ok := listed[string(to)]
		if !ok {
			return fmt.Errorf("%q: linked to %q, which is not listed", b.Path, to)
		}
		if e, t := after.Entries[listed[string(b.Path)]], after.Entries[l]; e.Ino != t.Ino || e.Dev != t.Dev {
			return fmt.Errorf("%q: inode %d, not %q's %d", b.Path, e.Ino, to, t.Ino)
		}
	}
	return nil
}

func sameSums(sums []agent.Sum, sent map[string]string) error {
	got := map[string]string{}
	for _, s := range sums {
		got[string(s.Path)] = s.SHA256
	}
	if len(got) != len(sent) {
		return fmt.Errorf("%d files written, %d sent", len(got), len(sent))
	}
	for p, sum := range sent {
		if got[p] != sum {
			return fmt.Errorf("%q: written SHA-256 %q, sent %q", p, got[p], sum)
		}
	}
	return nil
}

// recreateTrees adds to p.Create, through restore, every fresh entry under
// a directory p creates that p does not create yet.
func (f *Fresh) recreateTrees(p *Plan, restore func(int) error) error {
	dirs := map[string]bool{}
	planned := make(map[string]bool, len(p.Create))
	for _, c := range p.Create {
		planned[string(c.Path)] = true
		if c.Type == agent.TypeDir {
			dirs[string(c.Path)] = true
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	for i := range f.base.entries {
		path := f.base.entries[i].Path
		if planned[string(path)] || string(path) == "/" || f.base.entries[i].MountRoot {
			continue // a mount root cannot have gone with its parent
		}
		for q := agent.Parent(path); ; q = agent.Parent(q) {
			if dirs[string(q)] {
				if err := restore(i); err != nil {
					return err
				}
				break
			}
			if len(q) == 1 {
				break
			}
		}
	}
	return nil
}
