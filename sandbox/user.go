package sandbox

import (
	"regexp"
	"strings"
)

// MaxNoFile is the highest nofile ulimit a sandbox may ask for: Linux's
// default fs.nr_open.
const MaxNoFile = 1 << 20

// UserSyntax describes what ValidUser accepts, for error messages.
const UserSyntax = `expected "uid", "uid:gid", "name" or "name:group" (letters, digits, '_', '.', '-'; at most 32 characters each)`

var userPart = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$`)

// ValidUser reports whether u is a user for Spec.User: "uid", "uid:gid",
// "name" or "name:group".
func ValidUser(u string) bool {
	name, group, hasGroup := strings.Cut(u, ":")
	return userPart.MatchString(name) && (!hasGroup || userPart.MatchString(group))
}

// NormalUser returns the user a container runs as for Spec.User u: a bare
// numeric uid gets the group of the same number, so that a uid the image
// does not know does not run in root's group (the engine's choice). Other
// forms are returned as they are.
func NormalUser(u string) string {
	if u == "" || strings.Contains(u, ":") || strings.Trim(u, "0123456789") != "" {
		return u
	}
	return u + ":" + u
}
