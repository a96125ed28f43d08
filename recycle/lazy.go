package recycle

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// keptImages bounds the images whose fresh listing the host keeps after
// their last sandbox is gone (least recently used first out): a listing of
// the toolchain image is ~72,000 entries, ~15 MB.
const keptImages = 8

// ErrNoListing is returned by FromScoped when the host holds no listing of
// the image, or the sandbox's scoped listing does not fit the one it
// holds: the caller takes the whole listing.
var ErrNoListing = errors.New("no matching listing of the image held")

// kept is the LRU of image → the listing of its first sandbox.
type kept struct {
	order []string // least recently used first
	bases map[string]*Base
}

// Keep records f's listing as image's: later sandboxes of image may list
// only what a scoped walk lists (FromScoped). It is kept after f's sandbox
// is gone, for the keptImages images used last.
func (b *Baselines) Keep(image string, f *Fresh) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kept.bases == nil {
		b.kept.bases = map[string]*Base{}
	}
	if old, ok := b.kept.bases[image]; ok {
		if old == f.base {
			b.touchLocked(image)
			return
		}
		b.unrefLocked(old)
		b.kept.order = slices.DeleteFunc(b.kept.order, func(s string) bool { return s == image })
	}
	f.base.refs++
	b.kept.bases[image] = f.base
	b.kept.order = append(b.kept.order, image)
	for len(b.kept.order) > keptImages {
		drop := b.kept.order[0]
		b.kept.order = b.kept.order[1:]
		b.unrefLocked(b.kept.bases[drop])
		delete(b.kept.bases, drop)
	}
}

// Kept reports whether a listing of image is held.
func (b *Baselines) Kept(image string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.kept.bases[image]
	return ok
}

func (b *Baselines) touchLocked(image string) {
	b.kept.order = slices.DeleteFunc(b.kept.order, func(s string) bool { return s == image })
	b.kept.order = append(b.kept.order, image)
}

func (b *Baselines) unrefLocked(base *Base) {
	if base.refs--; base.refs == 0 {
		delete(b.m, base.shape)
	}
}

// FromScoped records a fresh sandbox of image from a scoped listing (the
// agent's scan -scoped under scope: the upper layer's directories at
// creation, the other writable mounts whole) against the listing held for
// image. Every entry listed must be the held listing's, of the same shape,
// and every held entry a scoped walk lists must be listed; else
// ErrNoListing. The listed entries are proven under a new key; the others
// are the image's, untouched since the container was made, but this
// sandbox's inodes and ctimes of them are not known: they stay unproven
// until a recycle lists them, and a recycle takes one as it is only when
// untouched(path) says the upper layer does not hold it (any change would
// have copied it up), else restores it.
func (b *Baselines) FromScoped(image string, scope *agent.Scope, listed []agent.Entry, untouched func([]byte) bool) (*Fresh, error) {
	if scope == nil || untouched == nil {
		return nil, errors.New("scoped fresh listing: a scope and an upper-layer check are needed")
	}
	b.mu.Lock()
	base, ok := b.kept.bases[image]
	if ok {
		base.refs++
		b.touchLocked(image)
	}
	b.mu.Unlock()
	if !ok {
		return nil, ErrNoListing
	}
	f, err := fromScoped(b, base, scope, listed)
	if err != nil {
		b.mu.Lock()
		b.unrefLocked(base)
		b.mu.Unlock()
		return nil, err
	}
	f.untouched = untouched
	return f, nil
}

func fromScoped(b *Baselines, base *Base, scope *agent.Scope, listed []agent.Entry) (*Fresh, error) {
	key, err := NewKey()
	if err != nil {
		return nil, err
	}
	f := &Fresh{bases: b, base: base, key: key, mtime: map[int]int64{},
		fps: make([]agent.FP, len(base.entries)), unproven: make([]bool, len(base.entries))}
	for i := range f.unproven {
		f.unproven[i] = true
	}
	want := scope.Filter(base.entries)
	if len(want) != len(listed) {
		return nil, fmt.Errorf("%w: %d entries listed, %d expected", ErrNoListing, len(listed), len(want))
	}
	for _, e := range listed {
		i, ok := base.index[string(e.Path)]
		if !ok {
			return nil, fmt.Errorf("%w: %q is not in it", ErrNoListing, e.Path)
		}
		if !f.unproven[i] {
			return nil, fmt.Errorf("%w: %q listed twice", ErrNoListing, e.Path)
		}
		if err := sameShape(base.entries[i], e); err != nil || e.MountRoot != base.entries[i].MountRoot {
			return nil, fmt.Errorf("%w: %q: %v", ErrNoListing, e.Path, err)
		}
		f.prove(i, e)
	}
	for _, i := range want {
		if f.unproven[i] {
			return nil, fmt.Errorf("%w: %q not listed", ErrNoListing, base.entries[i].Path)
		}
	}
	return f, nil
}

// prove makes e, listed at the fresh index i, proven: its fingerprint, and
// its mtime where it differs from the shared listing's.
func (f *Fresh) prove(i int, e agent.Entry) {
	f.fps[i] = f.key.Fingerprint(e)
	if f.unproven != nil {
		f.unproven[i] = false
	}
	if e.Mtime != f.base.entries[i].Mtime {
		f.mtime[i] = e.Mtime
	} else {
		delete(f.mtime, i)
	}
}

// fp is the fingerprint sent for the fresh index i: an unproven entry's
// has its path's and an entry hash of 0, which a listed entry matches with
// a 2^-64 chance, so it comes back as changed and is judged (Plan).
func (f *Fresh) fp(i int) agent.FP {
	if f.unproven != nil && f.unproven[i] {
		return agent.FP{Path: f.key.PathKey(f.base.entries[i].Path)}
	}
	return f.fps[i]
}

// Unproven counts the entries not proven yet (tests, logs).
func (f *Fresh) Unproven() int {
	n := 0
	for _, u := range f.unproven {
		if u {
			n++
		}
	}
	return n
}
