package recycle_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// inodes gives every entry of ents another inode and ctime: what a second
// container of the same image shows for them.
func inodes(ents []agent.Entry, shift uint64) []agent.Entry {
	out := make([]agent.Entry, len(ents))
	for i, e := range ents {
		e.Ino += shift
		e.Ctime += int64(shift)
		out[i] = e
	}
	return out
}

func scopeOf(t *testing.T, dirs ...string) *agent.Scope {
	t.Helper()
	b := make([][]byte, len(dirs))
	for i, d := range dirs {
		b[i] = []byte(d)
	}
	s, err := agent.NewScope(b)
	require.NoError(t, err)
	return s
}

func listedIn(scope *agent.Scope, ents []agent.Entry) []agent.Entry {
	var out []agent.Entry
	for _, i := range scope.Filter(ents) {
		out = append(out, ents[i])
	}
	return out
}

// TestFromScoped: a second sandbox of an image is recorded from what a
// scoped walk lists when that fits the image's listing, and refused
// (ErrNoListing) otherwise.
func TestFromScoped(t *testing.T) {
	base := []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 1), dir("/usr", 1), file("/usr/a", 1), dir("/w", 1)}
	tests := []struct {
		name   string
		image  string
		listed func(scope *agent.Scope, second []agent.Entry) []agent.Entry
		err    bool
	}{
		{"fits", "img", listedIn, false},
		{"another image", "other", listedIn, true},
		{"an entry too many", "img", func(s *agent.Scope, e []agent.Entry) []agent.Entry {
			return append(listedIn(s, e), file("/w/x", 1))
		}, true},
		{"an entry missing", "img", func(s *agent.Scope, e []agent.Entry) []agent.Entry { return listedIn(s, e)[1:] }, true},
		{"another shape", "img", func(s *agent.Scope, e []agent.Entry) []agent.Entry {
			l := listedIn(s, e)
			l[len(l)-1].Mode = 0o700
			return l
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b recycle.Baselines
			first, err := b.NewFresh(base)
			require.NoError(t, err)
			b.Keep("img", first)
			first.Release()
			require.True(t, b.Kept("img"), "kept after its sandbox is gone")
			scope := scopeOf(t) // a fresh container's upper layer: empty
			f, err := b.FromScoped(tc.image, scope, tc.listed(scope, inodes(base, 100)), func([]byte) bool { return true })
			if tc.err {
				require.ErrorIs(t, err, recycle.ErrNoListing)
				return
			}
			require.NoError(t, err)
			defer f.Release()
			assert.Equal(t, 2, f.Unproven(), "/etc/passwd and /usr/a were never listed")
		})
	}
}

// TestScopedFreshPlan: the first recycle of a sandbox recorded from a
// scoped listing takes the image's entries it lists for the first time as
// they are when the upper layer does not hold them, and restores them when
// it does (a change copied them up) or when they are gone; the entries it
// took are proven after, so the next recycle reports nothing.
func TestScopedFreshPlan(t *testing.T) {
	base := []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 1), file("/etc/group", 1), dir("/usr", 1),
		file("/usr/a", 1), file("/usr/b", 1), dir("/w", 1)}
	second := inodes(base, 100)
	changed := func(ents []agent.Entry, p string) []agent.Entry {
		out := append([]agent.Entry{}, ents...)
		for i := range out {
			if string(out[i].Path) == p {
				out[i].Ctime += 7 // a rewrite of the same size, its mtime put back
			}
		}
		return out
	}
	tests := []struct {
		name        string
		cur         []agent.Entry
		upper       []string // directories of the upper layer
		held        []string // entries the upper layer holds
		wantCreate  []string
		wantProven  []string
		wantRemoved []string
	}{
		{"nothing changed, /etc copied up by a file created and removed", second, []string{"/etc"}, []string{"/etc"},
			[]string{}, []string{"/etc/group", "/etc/passwd"}, nil},
		{"passwd rewritten in place", changed(second, "/etc/passwd"), []string{"/etc"}, []string{"/etc", "/etc/passwd"},
			[]string{"/etc/passwd"}, []string{"/etc/group"}, nil},
		{"an untouched-looking entry the layer holds is restored", second, []string{"/usr"}, []string{"/usr", "/usr/b"},
			[]string{"/usr/b"}, []string{"/usr/a"}, nil},
		{"a deleted entry", without(second, "/usr/a"), []string{"/usr"}, []string{"/usr", "/usr/a"},
			[]string{"/usr/a"}, []string{"/usr/b"}, nil},
		{"a new file", append(append([]agent.Entry{}, second...), file("/usr/c", 5)), []string{"/usr"}, []string{"/usr", "/usr/c"},
			[]string{}, []string{"/usr/a", "/usr/b"}, []string{"/usr/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b recycle.Baselines
			first, err := b.NewFresh(base)
			require.NoError(t, err)
			defer first.Release()
			b.Keep("img", first)
			held := map[string]bool{}
			for _, h := range tc.held {
				held[h] = true
			}
			untouched := func(p []byte) bool { return !held[string(p)] }
			f, err := b.FromScoped("img", scopeOf(t), listedIn(scopeOf(t), second), untouched)
			require.NoError(t, err)
			defer f.Release()

			scope := scopeOf(t, tc.upper...)
			proven, idx := f.ProvenIn(scope)
			ch, missing, err := agent.Changes(proven, listedIn(scope, tc.cur))
			require.NoError(t, err)
			p, err := f.PlanIn(agent.Report{Entries: ch, Missing: missing}, idx)
			require.NoError(t, err)
			assert.Equal(t, tc.wantCreate, paths(p.Create), "restored")
			assert.ElementsMatch(t, tc.wantProven, paths(p.Proven), "taken as the image's")
			assert.Equal(t, len(tc.wantRemoved), len(p.Remove), "removed")

			// The agent applies the plan and lists what it set: the
			// restored entries as fresh (new inodes), their parents.
			var after []agent.Entry
			for _, e := range append(append([]agent.Entry{}, p.Create...), p.Meta...) {
				e.Ino += 1000
				after = append(after, e)
			}
			require.NoError(t, f.Accept(p, agent.Report{Entries: after}, map[string]string{}))
			next := restored(tc.cur, p, after)
			proven, idx = f.ProvenIn(scope)
			ch, missing, err = agent.Changes(proven, listedIn(scope, next))
			require.NoError(t, err)
			assert.Empty(t, ch, "the next recycle: nothing changed")
			assert.Empty(t, missing)
			assert.Equal(t, len(idx), len(listedIn(scope, next)))
		})
	}
}

// restored is cur after plan: removed entries gone, created and fixed ones
// as the agent listed them after.
func restored(cur []agent.Entry, p recycle.Plan, after []agent.Entry) []agent.Entry {
	set := map[string]agent.Entry{}
	for _, e := range cur {
		set[string(e.Path)] = e
	}
	for _, r := range p.Remove {
		delete(set, string(r))
	}
	for _, e := range after {
		set[string(e.Path)] = e
	}
	out := make([]agent.Entry, 0, len(set))
	for _, e := range set {
		out = append(out, e)
	}
	agent.SortByPath(out)
	return out
}

func without(ents []agent.Entry, p string) []agent.Entry {
	var out []agent.Entry
	for _, e := range ents {
		if string(e.Path) != p {
			out = append(out, e)
		}
	}
	return out
}

// TestKeepBounded: the listings kept for images no sandbox uses are
// bounded; the least recently used goes first.
func TestKeepBounded(t *testing.T) {
	var b recycle.Baselines
	for i := 0; i < 12; i++ {
		f, err := b.NewFresh([]agent.Entry{dir("/", 1), file(fmt.Sprintf("/f%d", i), 1)})
		require.NoError(t, err)
		b.Keep(fmt.Sprintf("img%d", i), f)
		f.Release()
	}
	assert.Equal(t, 8, b.Len(), "listings held")
	for i := 0; i < 12; i++ {
		assert.Equal(t, i >= 4, b.Kept(fmt.Sprintf("img%d", i)), "img%d", i)
	}
}
