package replayer

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// service is one entry of the allow-list: an origin (scheme, host, port)
// and the path prefix under it.
type service struct {
	name, raw    string
	scheme, host string
	port         string // explicit, or the scheme's default
	prefix       string // cleaned, no trailing '/'; "" allows the whole origin
}

// allowList is the set of URLs http steps may reach: the task's services.
type allowList []service

// newAllowList parses the services' base URLs. A base that does not parse
// allows nothing (tasks are validated on load; this only keeps an odd
// --service override from widening the list).
func newAllowList(services map[string]string) allowList {
	var a allowList
	for name, raw := range services {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		a = append(a, service{name: name, raw: raw, scheme: u.Scheme, host: strings.ToLower(u.Hostname()),
			port: portOf(u), prefix: strings.TrimSuffix(path.Clean("/"+u.Path), "/")})
	}
	slices.SortFunc(a, func(x, y service) int { return strings.Compare(x.name, y.name) })
	return a
}

// check returns the URL to send for raw when it lies under one of the
// services: its path cleaned of "." and ".." segments and doubled slashes,
// so that what was checked is what is sent. A prefix "/svc" admits "/svc"
// and "/svc/..." but not "/svc-evil"; the query plays no part.
func (a allowList) check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("url %q: %v", raw, err)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("url %q: expected an absolute http(s) URL", raw)
	case u.User != nil:
		return nil, fmt.Errorf("url %q: credentials in the URL are not allowed (send them in a header)", u.Redacted())
	}
	p, err := cleanPath(u)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	host, port := strings.ToLower(u.Hostname()), portOf(u)
	for _, s := range a {
		if s.scheme == u.Scheme && s.host == host && s.port == port && under(p, s.prefix) {
			out := *u
			out.Path, out.RawPath, out.Fragment, out.RawFragment = p, "", "", ""
			return &out, nil
		}
	}
	return nil, fmt.Errorf("url %q is not under any of the task's services (%s)", u.Redacted(), a)
}

// errEncoded rejects encodings that a server may decode differently from
// us: encoded separators and dots could turn a path we checked into a
// traversal once the server decodes it.
var errEncoded = errors.New(`path holds an encoded '/', '\' or '.' (%2f, %5c, %2e), or a '\': write the path plainly`)

// cleanPath is u's decoded path with dot segments resolved, keeping a
// trailing '/'.
func cleanPath(u *url.URL) (string, error) {
	for _, s := range []string{strings.ToLower(u.EscapedPath()), strings.ToLower(u.Path)} {
		if strings.Contains(s, "%2f") || strings.Contains(s, "%5c") || strings.Contains(s, "%2e") || strings.Contains(s, `\`) {
			return "", errEncoded
		}
	}
	p := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") && p != "/" {
		p += "/"
	}
	return p, nil
}

// under reports whether cleaned path p is prefix or below it.
func under(p, prefix string) bool {
	return prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/")
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// String lists the services for error messages.
func (a allowList) String() string {
	if len(a) == 0 {
		return "none declared"
	}
	parts := make([]string, len(a))
	for i, s := range a {
		parts[i] = s.name + "=" + s.raw
	}
	return strings.Join(parts, ", ")
}
