package admission

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distribution/reference"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/task/source"
)

// Flags name the command-line flags that allow what a task asked for, in
// refusals ("--allow-cap SYS_ADMIN allows it").
var Flags = struct{ Cap, Network, Root, WritableRoot, Registry string }{
	Cap: "--allow-cap", Network: "--allow-network", Root: "deny_root in the --task-policy file, or --deny-root",
	WritableRoot: "deny_writable_root in the --task-policy file, or --deny-writable-root", Registry: "--allow-registry",
}

// Admit returns nil when p allows everything t asks for, else every
// refusal, each a *task.ParseError naming the file, line, field, what was
// asked and the flag that would allow it. pull is the command's pull
// policy: an image that would not be pulled needs no registry (one that
// is local, one built from the task's Dockerfile, and under --pull
// missing one that local reports present: built or loaded on this host).
func (p Policy) Admit(t *task.Task, pull sandbox.PullPolicy, local ...LocalImages) error {
	var r *source.Reporter
	refuse := func(field, format string, args ...any) {
		if r == nil {
			r = t.Reporter()
		}
		r.Errorf(field, format, args...)
	}
	for i, c := range t.CapAdd {
		if n := NormalCap(c); !slices.Contains(p.Caps, n) && !slices.Contains(sandbox.DefaultCaps, n) {
			refuse(source.Index("cap_add", i), "%q: the operator does not allow this capability (%s %s allows it; allowed: %v)", c, Flags.Cap, n, append(slices.Clone(sandbox.DefaultCaps), p.Caps...))
		}
	}
	if t.Network == sandbox.NetworkBridge && !p.Network {
		refuse("network", "%q: the operator does not allow a network (%s allows it)", t.Network, Flags.Network)
	}
	if p.DenyRoot && !nonRoot(t.User) {
		refuse("user", "%q: the operator denies root (%s): expected a non-root uid[:gid]", t.User, Flags.Root)
	}
	if p.DenyWritableRoot && !t.ReadOnlyRoot {
		refuse("read_only_root", "the operator requires a read-only root (%s): expected read_only_root: true", Flags.WritableRoot)
	}
	if host, pulled := registryOf(t, pull); pulled && !slices.Contains(p.Registries, host) && !present(local, t.Image, pull) {
		refuse("image", "%q: pulled from %s, which the operator does not allow (%s %s allows it; or --pull never with the image present)", t.Image, host, Flags.Registry, host)
	}
	if r == nil {
		return nil
	}
	return r.Err()
}

// LocalImages reports whether the engine has image ref already.
type LocalImages func(ref string) (bool, error)

// present reports whether an image --pull missing would not pull is
// there: a failed look counts as absent.
func present(local []LocalImages, ref string, pull sandbox.PullPolicy) bool {
	if pull.Effective(ref) != sandbox.PullMissing {
		return false
	}
	for _, l := range local {
		if ok, err := l(ref); err == nil && ok {
			return true
		}
	}
	return false
}

// nonRoot reports whether user names a uid other than 0 (a name is
// resolved in the image: only a number can be judged here, so a name
// counts as root).
func nonRoot(user string) bool {
	uid, _, _ := strings.Cut(sandbox.NormalUser(user), ":")
	n, err := strconv.ParseUint(uid, 10, 32)
	return err == nil && n != 0
}

// registryOf returns the registry t's image would be pulled from, and
// whether pull would pull it at all: not rbx's local images, nor one built
// from the task's own Dockerfile (build:).
func registryOf(t *task.Task, pull sandbox.PullPolicy) (string, bool) {
	image := t.Image
	if image == "" || t.Build != nil || pull.Effective(image) == sandbox.PullNever {
		return "", false
	}
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return fmt.Sprintf("(unparsable %q)", image), true
	}
	return reference.Domain(named), true
}
