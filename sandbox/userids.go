package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// UserIDs is the numeric user and group a Spec.User resolves to, with the
// supplementary groups whose /etc/group entry lists the user by name.
type UserIDs struct {
	UID, GID int
	Groups   []int
}

// NumericUser parses "uid:gid" (as NormalUser leaves a bare uid): no
// lookup in the image is needed then.
func NumericUser(u string) (UserIDs, bool) {
	a, b, ok := strings.Cut(u, ":")
	uid, err1 := strconv.Atoi(a)
	gid, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return UserIDs{}, false
	}
	return UserIDs{UID: uid, GID: gid}, true
}

// ResolveUser resolves "user[:group]" (names or numbers) against an
// image's /etc/passwd and /etc/group contents as Docker does: a user's
// group is its passwd entry's unless given, and a uid the image does not
// know gets the group of the same number. Backends resolve users
// themselves because their engines' own lookups read the host's files or
// need privileges a sandbox does not have.
func ResolveUser(spec, passwd, group string) (UserIDs, error) {
	u, g, hasGroup := strings.Cut(spec, ":")
	ids := UserIDs{UID: -1, GID: -1}
	for _, line := range strings.Split(passwd, "\n") {
		f := strings.Split(line, ":")
		if len(f) < 4 || (f[0] != u && f[2] != u) {
			continue
		}
		uid, err1 := strconv.Atoi(f[2])
		gid, err2 := strconv.Atoi(f[3])
		if err1 == nil && err2 == nil {
			ids.UID, ids.GID = uid, gid
			ids.Groups = memberOf(f[0], group)
			break
		}
	}
	if ids.UID < 0 {
		n, err := strconv.Atoi(u)
		if err != nil || n < 0 {
			return UserIDs{}, fmt.Errorf("no user %q in the image's /etc/passwd", u)
		}
		ids.UID, ids.GID = n, n
	}
	if !hasGroup {
		return ids, nil
	}
	if n, err := strconv.Atoi(g); err == nil && n >= 0 {
		ids.GID = n
		return ids, nil
	}
	for _, line := range strings.Split(group, "\n") {
		if f := strings.Split(line, ":"); len(f) >= 3 && f[0] == g {
			if n, err := strconv.Atoi(f[2]); err == nil {
				ids.GID = n
				return ids, nil
			}
		}
	}
	return UserIDs{}, fmt.Errorf("no group %q in the image's /etc/group", g)
}

// memberOf returns the gids of the /etc/group entries listing name as a
// member.
func memberOf(name, group string) []int {
	var gids []int
	for _, line := range strings.Split(group, "\n") {
		f := strings.Split(line, ":")
		if len(f) < 4 {
			continue
		}
		for _, m := range strings.Split(f[3], ",") {
			if n, err := strconv.Atoi(f[2]); err == nil && strings.TrimSpace(m) == name {
				gids = append(gids, n)
			}
		}
	}
	return gids
}
