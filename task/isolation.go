package task

import (
	"path"
	"regexp"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task/source"
)

var capPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// validateIsolation checks user, cap_add and read_only_root, and that with
// a read-only root every staged file lands on a writable path.
func (t *Task) validateIsolation(r *source.Reporter) {
	if t.User != "" && !sandbox.ValidUser(t.User) {
		r.Errorf("user", "%q: %s", t.User, sandbox.UserSyntax)
	}
	for i, c := range t.CapAdd {
		switch {
		case c == "ALL":
			r.Errorf(source.Index("cap_add", i), `"ALL": name each capability the task needs`)
		case !capPattern.MatchString(c):
			r.Errorf(source.Index("cap_add", i), "%q: expected a capability name such as DAC_OVERRIDE", c)
		}
	}
	if !t.ReadOnlyRoot {
		return
	}
	workdir := t.Workdir
	if workdir == "" {
		workdir = sandbox.DefaultWorkdir
	}
	if workdir == "/" || path.Clean(workdir) == "/tmp" {
		r.Errorf("workdir", "%q: with read_only_root, expected a workdir other than / and /tmp", t.Workdir)
		return
	}
	for _, field := range []string{"files", "verify.files"} {
		files := t.Files
		if field == "verify.files" {
			files = t.Verify.Files
		}
		for _, src := range sortedKeys(files) {
			if dest := files[src]; !writableUnder(dest, workdir) {
				r.Errorf(source.Key(field, src), "%q: with read_only_root, expected a destination under the workdir (%s) or /tmp", dest, workdir)
			}
		}
	}
}

// writableUnder reports whether dest (absolute, or relative to workdir)
// lies below workdir or /tmp, the writable paths of a read-only root.
func writableUnder(dest, workdir string) bool {
	if !path.IsAbs(dest) {
		dest = path.Join(workdir, dest)
	}
	dest = path.Clean(dest)
	for _, root := range []string{path.Clean(workdir), "/tmp"} {
		if dest == root || strings.HasPrefix(dest, root+"/") { // == root: a directory's contents
			return true
		}
	}
	return false
}
