package recycle_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// scopedPlan plans the restore of cur (what the sandbox holds now) as a
// scoped recycle does: the host sends the fingerprints its scope lists,
// the agent lists the same scope of cur.
func scopedPlan(t *testing.T, base, cur []agent.Entry, upper ...string) (recycle.Plan, error) {
	t.Helper()
	var b recycle.Baselines
	f, err := b.NewFresh(base)
	require.NoError(t, err)
	t.Cleanup(f.Release)
	dirs := make([][]byte, len(upper))
	for i, u := range upper {
		dirs[i] = []byte(u)
	}
	scope, err := agent.NewScope(dirs)
	require.NoError(t, err)
	proven, idx := f.ProvenIn(scope)
	var listed []agent.Entry
	for _, i := range scope.Filter(cur) {
		listed = append(listed, cur[i])
	}
	changed, missing, err := agent.Changes(proven, listed)
	require.NoError(t, err)
	return f.PlanIn(agent.Report{Entries: changed, Missing: missing}, idx)
}

// TestScopedPlan: a walk limited to the upper layer's directories plans
// what the full walk plans, for changes that copy their directories up.
func TestScopedPlan(t *testing.T) {
	base := []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 1), dir("/usr", 1), dir("/usr/lib", 1),
		dir("/usr/lib/x", 1), file("/usr/lib/x/a.so", 1), file("/usr/lib/b.so", 1), dir("/w", 1)}
	with := func(extra ...agent.Entry) []agent.Entry { return append(append([]agent.Entry{}, base...), extra...) }
	without := func(drop ...string) []agent.Entry {
		var out []agent.Entry
		for _, e := range base {
			keep := true
			for _, d := range drop {
				if string(e.Path) == d {
					keep = false
				}
			}
			if keep {
				out = append(out, e)
			}
		}
		return out
	}
	tests := []struct {
		name                 string
		cur                  []agent.Entry
		upper                []string
		remove, create, meta []string
	}{
		{"nothing copied up", base, nil, nil, nil, nil},
		{"new file in the workdir", with(file("/w/out", 2)), []string{"/w"}, []string{"/w/out"}, nil, []string{"/w"}},
		{"deep image file rewritten", append(without("/usr/lib/x/a.so"), file("/usr/lib/x/a.so", 5)), []string{"/usr", "/usr/lib", "/usr/lib/x"},
			nil, []string{"/usr/lib/x/a.so"}, []string{"/usr/lib/x"}},
		{"image directory deleted: its tree recreated", without("/usr/lib/x", "/usr/lib/x/a.so"), []string{"/usr", "/usr/lib"},
			nil, []string{"/usr/lib/x", "/usr/lib/x/a.so"}, []string{"/usr/lib", "/usr/lib/x"}},
		{"image directory emptied and made again (opaque): its tree recreated",
			append(without("/usr/lib/x/a.so", "/usr/lib/x"), dir("/usr/lib/x", 8)), []string{"/usr", "/usr/lib", "/usr/lib/x"},
			nil, []string{"/usr/lib/x/a.so"}, []string{"/usr/lib/x"}},
		{"image directory replaced by a file: its tree recreated", append(without("/usr/lib/x", "/usr/lib/x/a.so"), file("/usr/lib/x", 6)),
			[]string{"/usr", "/usr/lib"}, nil, []string{"/usr/lib/x", "/usr/lib/x/a.so"}, []string{"/usr/lib", "/usr/lib/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scopedPlan(t, base, tc.cur, tc.upper...)
			require.NoError(t, err)
			full, err := plan(t, base, tc.cur)
			require.NoError(t, err)
			assert.Equal(t, tc.remove, strs(got.Remove), "remove")
			assert.Equal(t, tc.create, nilIfEmpty(paths(got.Create)), "create")
			assert.Equal(t, tc.meta, nilIfEmpty(paths(got.Meta)), "meta")
			assert.Equal(t, paths(full.Create), paths(got.Create), "the full walk's creations")
			assert.Equal(t, paths(full.Meta), paths(got.Meta), "the full walk's metadata")
		})
	}
}

// TestScopeFilter: the root filesystem's entries of walked directories
// (an unwalked directory's own entry too), never an unwalked directory's
// tree; other mounts whole.
func TestScopeFilter(t *testing.T) {
	ents := []agent.Entry{dir("/", 1), dir("/dev", 1), file("/dev/null", 1), dir("/etc", 1), file("/etc/hosts", 1),
		file("/etc/passwd", 1), dir("/usr", 1), dir("/usr/bin", 1), file("/usr/bin/sh", 1), dir("/w", 1), file("/w/f", 1)}
	ents[1].MountRoot, ents[4].MountRoot = true, true // /dev, /etc/hosts
	scope, err := agent.NewScope([][]byte{[]byte("/usr"), []byte("/w")})
	require.NoError(t, err)
	var got []string
	for _, i := range scope.Filter(ents) {
		got = append(got, string(ents[i].Path))
	}
	assert.Equal(t, []string{"/", "/dev", "/dev/null", "/etc", "/etc/hosts", "/usr", "/usr/bin", "/w", "/w/f"}, got)
	var none *agent.Scope
	assert.Len(t, none.Filter(ents), len(ents), "no scope: everything")
}

// TestUpperDirs: the upper layer's directories as sandbox paths, files
// and symlinks left out.
func TestUpperDirs(t *testing.T) {
	up := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(up, "usr/lib/x"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(up, "tmp"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(up, "usr/lib/f"), nil, 0o644))
	require.NoError(t, os.Symlink("/usr", filepath.Join(up, "tmp/l")))
	dirs, err := recycle.UpperDirs(up)
	require.NoError(t, err)
	var got []string
	for _, d := range dirs {
		got = append(got, string(d))
	}
	assert.ElementsMatch(t, []string{"/tmp", "/usr", "/usr/lib", "/usr/lib/x"}, got)
	_, err = recycle.UpperDirs(filepath.Join(up, "missing"))
	assert.Error(t, err)
}
