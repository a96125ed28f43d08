package recycle

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// Fresh is the host's record of one recyclable sandbox: what it looked
// like fresh, and the fingerprints of its last proven listing. The fresh
// listing is shared by every sandbox of the same shape (see Baselines), so
// a sandbox costs the host 16 bytes per entry, not a listing.
type Fresh struct {
	bases *Baselines
	base  *Base
	// mtime holds the entries whose mtime differs from the shared base's
	// (directories the engine created for this container's mounts).
	mtime map[int]int64
	key   agent.Key
	fps   []agent.FP
	// unproven marks the entries whose fingerprint is not known (nil: all
	// are known): a sandbox created from a scoped listing (FromScoped)
	// has never listed the image's untouched entries.
	unproven []bool
	// untouched reports whether the upper layer lacks a path (FromScoped).
	untouched func([]byte) bool
}

// Base is a fresh listing shared by the sandboxes of one shape: entries
// sorted by path, without the per-container inode, device and ctime.
type Base struct {
	entries []agent.Entry
	index   map[string]int
	shape   [sha256.Size]byte
	refs    int
	// leader maps each hard-linked file (agent.LinkGroups) to the first
	// path of its inode, members each leader to its group.
	leader  map[int]int
	members map[int][]int
}

// Baselines interns fresh listings by shape (paths, types, modes, owners,
// sizes, link targets, devices). A Base lives while a sandbox uses it, so
// the host holds at most one per live sandbox, usually one per image.
type Baselines struct {
	mu   sync.Mutex
	m    map[[sha256.Size]byte]*Base
	kept kept
}

// NewFresh records a fresh sandbox from its full listing and draws its
// secret fingerprint key.
func (b *Baselines) NewFresh(ents []agent.Entry) (*Fresh, error) {
	ents = slices.Clone(ents)
	agent.SortByPath(ents)
	for i := 1; i < len(ents); i++ {
		if string(ents[i].Path) == string(ents[i-1].Path) {
			return nil, fmt.Errorf("fresh listing: %q twice", ents[i].Path)
		}
	}
	key, err := NewKey()
	if err != nil {
		return nil, err
	}
	f := &Fresh{bases: b, mtime: map[int]int64{}, fps: make([]agent.FP, len(ents)), key: key}
	for i, e := range ents {
		f.fps[i] = f.key.Fingerprint(e)
	}
	f.base = b.intern(ents)
	for i, e := range ents {
		if e.Mtime != f.base.entries[i].Mtime {
			f.mtime[i] = e.Mtime
		}
	}
	return f, nil
}

// NewKey draws a sandbox's secret fingerprint key.
func NewKey() (agent.Key, error) {
	var k agent.Key
	if _, err := rand.Read(k[:]); err != nil {
		return k, fmt.Errorf("fingerprint key: %w", err)
	}
	return k, nil
}

// FromFPs records a fresh sandbox from its fingerprints (scan -fp under
// key) when a listing of that shape is held; false when none is: the
// caller takes the full listing (NewFresh).
func (b *Baselines) FromFPs(key agent.Key, f agent.FreshFPs) (*Fresh, bool) {
	b.mu.Lock()
	base, ok := b.m[f.Shape]
	if ok && len(base.entries) == len(f.FPs) && len(f.Mtimes) == len(f.FPs) {
		base.refs++
	} else {
		ok = false
	}
	b.mu.Unlock()
	if !ok {
		return nil, false
	}
	fr := &Fresh{bases: b, base: base, key: key, fps: f.FPs, mtime: map[int]int64{}}
	for i, mt := range f.Mtimes {
		if mt != base.entries[i].Mtime {
			fr.mtime[i] = mt
		}
	}
	return fr, true
}

func (b *Baselines) intern(ents []agent.Entry) *Base {
	shape := agent.ShapeOf(ents)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[[sha256.Size]byte]*Base{}
	}
	if base, ok := b.m[shape]; ok {
		base.refs++
		return base
	}
	base := &Base{entries: make([]agent.Entry, len(ents)), index: make(map[string]int, len(ents)), shape: shape, refs: 1,
		leader: agent.LinkGroups(ents), members: map[int][]int{}}
	for i := range ents {
		if l, ok := base.leader[i]; ok {
			base.members[l] = append(base.members[l], i)
		}
	}
	for i, e := range ents {
		e.Ctime, e.Ino, e.Dev = 0, 0, 0
		base.entries[i] = e
		base.index[string(e.Path)] = i
	}
	b.m[shape] = base
	return base
}

// Len reports how many shared listings are held (tests, metrics).
func (b *Baselines) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

// Release gives back f's share of its base (the sandbox is gone).
func (f *Fresh) Release() {
	b := f.bases
	b.mu.Lock()
	defer b.mu.Unlock()
	if f.base == nil {
		return
	}
	b.unrefLocked(f.base)
	f.base = nil
}

// Len is the number of entries of the fresh listing.
func (f *Fresh) Len() int { return len(f.fps) }

// entry is the fresh entry i as this sandbox had it (its own mtime).
func (f *Fresh) entry(i int) agent.Entry {
	e := f.base.entries[i]
	if mt, ok := f.mtime[i]; ok {
		e.Mtime = mt
	}
	return e
}

// Lookup returns the fresh entry at path.
func (f *Fresh) Lookup(path []byte) (agent.Entry, bool) {
	i, ok := f.base.index[string(path)]
	if !ok {
		return agent.Entry{}, false
	}
	return f.entry(i), true
}

// Proven is what a recycle sends the agent.
func (f *Fresh) Proven() agent.Proven {
	if f.unproven == nil {
		return agent.Proven{Key: f.key, FPs: f.fps}
	}
	fps := make([]agent.FP, len(f.fps))
	for i := range fps {
		fps[i] = f.fp(i)
	}
	return agent.Proven{Key: f.key, FPs: fps}
}

// group returns the fresh indexes of the hard-linked files i is one of
// (i alone when it is not hard-linked), the first path's first.
func (f *Fresh) group(i int) []int {
	l, ok := f.base.leader[i]
	if !ok {
		return []int{i}
	}
	return f.base.members[l]
}

// HardLinkOf returns the path a restore links path to — the first path of
// its inode in the fresh listing — or nil when path is that first path or
// not hard-linked.
func (f *Fresh) HardLinkOf(path []byte) []byte {
	i, ok := f.base.index[string(path)]
	if !ok {
		return nil
	}
	if l, ok := f.base.leader[i]; ok && l != i {
		return f.base.entries[l].Path
	}
	return nil
}
