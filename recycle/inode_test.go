package recycle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// withX returns e with the extended attributes name=value pairs.
func withX(e agent.Entry, pairs ...string) agent.Entry {
	for i := 0; i+1 < len(pairs); i += 2 {
		e.Xattrs = append(e.Xattrs, agent.Xattr{Name: pairs[i], Value: []byte(pairs[i+1])})
	}
	return e
}

// linked returns the file e as one of nlink paths of inode ino.
func linked(e agent.Entry, ino uint64, nlink uint32) agent.Entry {
	e.Ino, e.Nlink = ino, nlink
	return e
}

func TestPlanInodeMetadata(t *testing.T) {
	base := []agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "a"), file("/etc/passwd", 1),
		dir("/usr", 1), linked(file("/usr/perl", 1), 9, 2), linked(file("/usr/perl5", 1), 9, 2)}
	tests := []struct {
		name         string
		cur          []agent.Entry
		create, meta []string
	}{
		{"xattr added to a directory, same ctime: its meta restores the set",
			[]agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "a", "user.x", "secret"), file("/etc/passwd", 1),
				dir("/usr", 1), linked(file("/usr/perl", 1), 9, 2), linked(file("/usr/perl5", 1), 9, 2)},
			nil, []string{"/etc"}},
		{"ACL value changed on a directory",
			[]agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "b"), file("/etc/passwd", 1),
				dir("/usr", 1), linked(file("/usr/perl", 1), 9, 2), linked(file("/usr/perl5", 1), 9, 2)},
			nil, []string{"/etc"}},
		{"flags set on a file: recreated",
			[]agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "a"), func() agent.Entry { e := file("/etc/passwd", 1); e.Flags = 0x40; return e }(),
				dir("/usr", 1), linked(file("/usr/perl", 1), 9, 2), linked(file("/usr/perl5", 1), 9, 2)},
			[]string{"/etc/passwd"}, []string{"/etc"}},
		{"one path of a hard-linked pair changed: the pair is recreated",
			[]agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "a"), file("/etc/passwd", 1),
				dir("/usr", 1), linked(file("/usr/perl", 2), 10, 1), linked(file("/usr/perl5", 1), 9, 2)},
			[]string{"/usr/perl", "/usr/perl5"}, []string{"/usr"}},
		{"a new link to a file: the link count moved",
			[]agent.Entry{dir("/", 1), withX(dir("/etc", 1), "system.posix_acl_default", "a"), linked(file("/etc/passwd", 1), 6, 2),
				dir("/usr", 1), linked(file("/usr/perl", 1), 9, 2), linked(file("/usr/perl5", 1), 9, 2)},
			[]string{"/etc/passwd"}, []string{"/etc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan(t, base, tt.cur)
			require.NoError(t, err)
			assert.Equal(t, tt.create, nilIfEmpty(paths(p.Create)))
			assert.Equal(t, tt.meta, nilIfEmpty(paths(p.Meta)))
			for _, m := range p.Meta {
				if string(m.Path) == "/etc" {
					assert.Equal(t, base[1].Xattrs, m.Xattrs, "the fresh set, to be made exact")
				}
			}
		})
	}
}

func TestHardLinkOf(t *testing.T) {
	var b recycle.Baselines
	f, err := b.NewFresh([]agent.Entry{dir("/", 1), linked(file("/b", 1), 9, 2), linked(file("/a", 1), 9, 2), file("/c", 1)})
	require.NoError(t, err)
	t.Cleanup(f.Release)
	assert.Nil(t, f.HardLinkOf([]byte("/a")), "the first path of the inode is recreated with content")
	assert.Equal(t, []byte("/a"), f.HardLinkOf([]byte("/b")))
	assert.Nil(t, f.HardLinkOf([]byte("/c")))
}
