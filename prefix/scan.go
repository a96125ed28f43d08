package prefix

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// meta is what a scan records of one filesystem entry.
type meta struct {
	Type  byte // f d l p s c b (find's %y)
	Mode  uint32
	UID   int
	GID   int
	Ctime int64 // nanoseconds (whole seconds from busybox)
	Size  int64
	// Opaque marks a directory the scan could not read or search: its
	// content is not listed (see scanScript).
	Opaque bool
}

// listing is a scan: absolute path → entry.
type listing map[string]meta

// parseListing parses scanScript's gzipped output.
func parseListing(gz []byte) (listing, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	format, body, _ := bytes.Cut(data, []byte("\n"))
	sep, parse := byte(0), parseGNU
	switch string(format) {
	case "gnu":
	case "bb":
		sep, parse = '\n', parseBusybox
	default:
		return nil, fmt.Errorf("scan: unknown format %q", clipText(string(format), 20))
	}
	l := listing{}
	for _, rec := range bytes.Split(body, []byte{sep}) {
		if len(rec) == 0 {
			continue
		}
		p, m, err := parse(string(rec))
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		l[p] = m
	}
	return l, nil
}

// parseGNU parses "%y %m %U %G %C@ %s %p".
func parseGNU(rec string) (string, meta, error) {
	f := strings.SplitN(rec, " ", 7)
	if len(f) != 7 || len(f[0]) != 1 {
		return "", meta{}, fmt.Errorf("record %q: expected type mode uid gid ctime size path", clipText(rec, 80))
	}
	mode, err1 := strconv.ParseUint(f[1], 8, 32)
	uid, err2 := strconv.Atoi(f[2])
	gid, err3 := strconv.Atoi(f[3])
	ctime, err4 := parseNanos(f[4])
	size, err5 := strconv.ParseInt(f[5], 10, 64)
	if err := firstErr(err1, err2, err3, err4, err5); err != nil {
		return "", meta{}, fmt.Errorf("record %q: %w", clipText(rec, 80), err)
	}
	m := meta{Type: f[0][0], Mode: uint32(mode), UID: uid, GID: gid, Ctime: ctime, Size: size}
	if m.Type == 'o' {
		m.Type, m.Opaque = 'd', true
	}
	return f[6], m, nil
}

// parseBusybox parses stat's "%f %u %g %Z %s %n" (raw mode in hex).
func parseBusybox(rec string) (string, meta, error) {
	f := strings.SplitN(rec, " ", 6)
	if len(f) != 6 {
		return "", meta{}, fmt.Errorf("record %q: expected mode uid gid ctime size path (a path with a newline?)", clipText(rec, 80))
	}
	raw, err1 := strconv.ParseUint(f[0], 16, 32)
	uid, err2 := strconv.Atoi(f[1])
	gid, err3 := strconv.Atoi(f[2])
	ctime, err4 := strconv.ParseInt(f[3], 10, 64)
	ctime *= 1e9
	size, err5 := strconv.ParseInt(f[4], 10, 64)
	if err := firstErr(err1, err2, err3, err4, err5); err != nil {
		return "", meta{}, fmt.Errorf("record %q: %w", clipText(rec, 80), err)
	}
	types := map[uint64]byte{0o100000: 'f', 0o040000: 'd', 0o120000: 'l', 0o010000: 'p', 0o140000: 's', 0o020000: 'c', 0o060000: 'b'}
	t, ok := types[raw&0o170000]
	if !ok {
		return "", meta{}, fmt.Errorf("record %q: unknown file type", clipText(rec, 80))
	}
	return f[5], meta{Type: t, Mode: uint32(raw & 0o7777), UID: uid, GID: gid, Ctime: ctime, Size: size}, nil
}

// parseNanos reads find's "%C@" (seconds, a fraction of up to ten digits).
func parseNanos(s string) (int64, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	if err != nil {
		return 0, err
	}
	return n*1e9 + f, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// changes are what a prefix did to the filesystem.
type changes struct {
	// Delete are the topmost paths to remove (gone, or of another type).
	Delete []string
	// Archive are the paths to copy, parents first: new, changed since
	// t0 (content, mode, owner, links), or of another type.
	Archive []string
	// Bytes is the size of the regular files among them.
	Bytes int64
	// Opaque are the directories the scan could not enter that are new
	// or changed since t0: what changed inside them cannot be known, so
	// the state cannot be carried.
	Opaque []string
}

// diffListing compares the state cur (scanned in a sandbox whose prefix
// started at t0, in nanoseconds) with base, the template's fresh state.
// t0 errs early (a tick of slack; whole seconds on busybox), so an entry
// changed just before the prefix started may be copied too: the same
// bytes, harmless.
func diffListing(base, cur listing, t0 int64, exclude map[string]bool) changes {
	var c changes
	gone := map[string]bool{}
	for p, b := range base {
		if exclude[p] || p == "/" {
			continue
		}
		if m, ok := cur[p]; !ok || m.Type != b.Type {
			gone[p] = true
		}
	}
	for p := range gone {
		if !hasGoneAncestor(p, gone) {
			c.Delete = append(c.Delete, p)
		}
	}
	slices.Sort(c.Delete)
	for p, m := range cur {
		if exclude[p] || p == "/" {
			continue
		}
		if b, ok := base[p]; !ok || b.Type != m.Type || m.Ctime >= t0 || m.Opaque != b.Opaque {
			if m.Opaque {
				c.Opaque = append(c.Opaque, p)
				continue
			}
			c.Archive = append(c.Archive, p)
			if m.Type == 'f' {
				c.Bytes += m.Size
			}
		}
	}
	slices.Sort(c.Archive)
	slices.Sort(c.Opaque)
	return c
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func hasGoneAncestor(p string, gone map[string]bool) bool {
	for q := parentOf(p); q != "/"; q = parentOf(q) {
		if gone[q] {
			return true
		}
	}
	return false
}
