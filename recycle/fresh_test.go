package recycle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

func dir(p string, ctime int64) agent.Entry {
	return agent.Entry{Path: []byte(p), Type: agent.TypeDir, Mode: 0o755, Ctime: ctime, Ino: uint64(len(p))}
}

func file(p string, ctime int64) agent.Entry {
	return agent.Entry{Path: []byte(p), Type: agent.TypeFile, Mode: 0o644, Size: 3, Ctime: ctime, Ino: uint64(len(p))}
}

func link(p, target string, ctime int64) agent.Entry {
	return agent.Entry{Path: []byte(p), Type: agent.TypeSymlink, Mode: 0o777, Link: []byte(target), Ctime: ctime}
}

func paths(ents []agent.Entry) []string {
	out := []string{}
	for _, e := range ents {
		out = append(out, string(e.Path))
	}
	return out
}

// plan records base as fresh and plans the restore of cur through the
// agent's changes report, as a recycle does.
func plan(t *testing.T, base, cur []agent.Entry) (recycle.Plan, error) {
	t.Helper()
	var b recycle.Baselines
	f, err := b.NewFresh(base)
	require.NoError(t, err)
	t.Cleanup(f.Release)
	changed, missing, err := agent.Changes(f.Proven(), cur)
	require.NoError(t, err)
	return f.Plan(agent.Report{Entries: changed, Missing: missing})
}

func TestPlan(t *testing.T) {
	base := []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 1), dir("/w", 1), link("/bin", "usr/bin", 1)}
	tests := []struct {
		name                 string
		cur                  []agent.Entry
		remove, create, meta []string
	}{
		{"unchanged", base, nil, nil, nil},
		{"new tree removed once, parent's mtime fixed",
			append(append([]agent.Entry{}, base...), dir("/w/.x", 2), dir("/w/.x/.y", 2), file("/w/.x/.y/f", 2)),
			[]string{"/w/.x"}, nil, []string{"/w"}},
		{"deleted file recreated", []agent.Entry{dir("/", 1), dir("/etc", 1), dir("/w", 1), link("/bin", "usr/bin", 1)},
			nil, []string{"/etc/passwd"}, []string{"/etc"}},
		{"rewritten file (ctime moved) restored", []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 5), dir("/w", 1), link("/bin", "usr/bin", 1)},
			nil, []string{"/etc/passwd"}, []string{"/etc"}},
		{"chmod of a directory: metadata only", []agent.Entry{dir("/", 1), dir("/etc", 7), file("/etc/passwd", 1), dir("/w", 1), link("/bin", "usr/bin", 1)},
			nil, nil, []string{"/etc"}},
		{"directory replaced by a file", []agent.Entry{dir("/", 1), file("/etc", 9), dir("/w", 1), link("/bin", "usr/bin", 1)},
			nil, []string{"/etc", "/etc/passwd"}, []string{"/", "/etc"}},
		{"file replaced by a directory with content", []agent.Entry{dir("/", 1), dir("/etc", 1), dir("/etc/passwd", 9), file("/etc/passwd/x", 9), dir("/w", 1), link("/bin", "usr/bin", 1)},
			[]string{"/etc/passwd/x"}, []string{"/etc/passwd"}, []string{"/etc"}},
		{"symlink retargeted", []agent.Entry{dir("/", 1), dir("/etc", 1), file("/etc/passwd", 1), dir("/w", 1), link("/bin", "/tmp/evil", 4)},
			nil, []string{"/bin"}, []string{"/"}},
		{"planted symlink removed", append(append([]agent.Entry{}, base...), link("/w/x", "/etc", 3)),
			[]string{"/w/x"}, nil, []string{"/w"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := plan(t, base, tc.cur)
			require.NoError(t, err)
			assert.Equal(t, tc.remove, strs(plan.Remove), "remove")
			assert.Equal(t, tc.create, nilIfEmpty(paths(plan.Create)), "create")
			assert.Equal(t, tc.meta, nilIfEmpty(paths(plan.Meta)), "meta")
		})
	}
}

// strs renders paths as strings, nil for none.
func strs(paths [][]byte) []string {
	var out []string
	for _, p := range paths {
		out = append(out, string(p))
	}
	return out
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestPlanRefusesSocket(t *testing.T) {
	sock := agent.Entry{Path: []byte("/s"), Type: agent.TypeSocket, Ctime: 1}
	_, err := plan(t, []agent.Entry{dir("/", 1), sock}, []agent.Entry{dir("/", 1)})
	assert.ErrorContains(t, err, "socket")
}

func TestAccept(t *testing.T) {
	base := []agent.Entry{dir("/", 1), file("/f", 1)}
	base[1].Mtime = 100
	var b recycle.Baselines
	fresh := func(t *testing.T) (*recycle.Fresh, recycle.Plan) {
		f, err := b.NewFresh(base)
		require.NoError(t, err)
		t.Cleanup(f.Release)
		// /f rewritten: restored, / gets its metadata back.
		changed, missing, err := agent.Changes(f.Proven(), []agent.Entry{dir("/", 1), file("/f", 2)})
		require.NoError(t, err)
		p, err := f.Plan(agent.Report{Entries: changed, Missing: missing})
		require.NoError(t, err)
		require.Len(t, p.Create, 1)
		return f, p
	}
	restored := func() agent.Report {
		f := file("/f", 3)
		f.Mtime = 100
		return agent.Report{Entries: []agent.Entry{f, dir("/", 3)}, Sums: []agent.Sum{{Path: []byte("/f"), SHA256: "aa"}}}
	}
	sent := map[string]string{"/f": "aa"}
	tests := []struct {
		name  string
		edit  func(*agent.Report)
		sent  map[string]string
		error string
	}{
		{"restored", func(*agent.Report) {}, sent, ""},
		{"sum differs", func(*agent.Report) {}, map[string]string{"/f": "bb"}, "SHA-256"},
		{"not in the fresh listing", func(r *agent.Report) { r.Entries = append(r.Entries, file("/g", 1)) }, sent, "not in the fresh"},
		{"process left", func(r *agent.Report) { r.State.Others = 1 }, sent, "processes"},
		{"mode differs", func(r *agent.Report) { r.Entries[0].Mode = 0o4755 }, sent, "mode"},
		{"mtime differs", func(r *agent.Report) { r.Entries[0].Mtime = 7 }, sent, "mtime"},
		{"a set path not listed", func(r *agent.Report) { r.Entries = r.Entries[1:] }, sent, "not listed"},
		{"listed twice", func(r *agent.Report) { r.Entries = append(r.Entries, r.Entries[1]) }, sent, "twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, p := fresh(t)
			after := restored()
			tc.edit(&after)
			err := f.Accept(p, after, tc.sent)
			if tc.error != "" {
				assert.ErrorContains(t, err, tc.error)
				// Nothing proven: the rewritten /f still shows as changed.
				changed, _, err := agent.Changes(f.Proven(), []agent.Entry{dir("/", 3), restored().Entries[0]})
				require.NoError(t, err)
				assert.NotEmpty(t, changed)
				return
			}
			require.NoError(t, err)
			// The listed entries are the proven ones now: no change left.
			changed, missing, err := agent.Changes(f.Proven(), after.Entries)
			require.NoError(t, err)
			assert.Empty(t, changed)
			assert.Empty(t, missing)
		})
	}
}

func TestBaselinesShareByShape(t *testing.T) {
	var b recycle.Baselines
	one := []agent.Entry{dir("/", 1), file("/f", 1)}
	other := []agent.Entry{dir("/", 9), file("/f", 9)} // other ctimes and mtimes: same shape
	other[0].Mtime = 5
	f1, err := b.NewFresh(one)
	require.NoError(t, err)
	f2, err := b.NewFresh(other)
	require.NoError(t, err)
	assert.Equal(t, 1, b.Len(), "one shape, one shared listing")
	e, ok := f2.Lookup([]byte("/"))
	require.True(t, ok)
	assert.Equal(t, int64(5), e.Mtime, "each sandbox keeps its own mtimes")
	f3, err := b.NewFresh([]agent.Entry{dir("/", 1), file("/g", 1)})
	require.NoError(t, err)
	assert.Equal(t, 2, b.Len())
	_, err = b.NewFresh([]agent.Entry{dir("/", 1), dir("/", 1)})
	assert.ErrorContains(t, err, "twice")
	for _, f := range []*recycle.Fresh{f1, f2, f3} {
		f.Release()
	}
	assert.Equal(t, 0, b.Len(), "released with the last sandbox")
}
