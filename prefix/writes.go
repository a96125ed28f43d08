package prefix

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// fileWrite is one regular file the shell writes with a builtin.
type fileWrite struct {
	Path string
	Data []byte
}

// builtinWrites turns archives into writes the session shell can do with
// printf alone — no process started, which on a busy machine is most of an
// apply — when that is exact: only regular text files (no NUL byte) of
// modest total size, each either existing in the fresh sandbox with the
// captured mode and owner (a truncating write keeps them) or new in an
// existing directory with the mode and owner the shell gives new files;
// directories only where they exist with the captured mode and owner; no
// deletion. Like a live replay, the restore stamps the files with its own
// time. ok is false when the archives need tar.
func (src *Source) builtinWrites(archives [][]byte, del []string, base listing) ([]fileWrite, bool) {
	if len(del) > 0 {
		return nil, false
	}
	var out []fileWrite
	total := 0
	for _, a := range archives {
		zr, err := gzip.NewReader(bytes.NewReader(a))
		if err != nil {
			return nil, false
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, false
			}
			p := "/" + strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/")
			p = strings.TrimSuffix(p, "/")
			b, inBase := base[p]
			same := inBase && b.Mode == uint32(h.Mode&0o7777) && b.UID == h.Uid && b.GID == h.Gid
			switch h.Typeflag {
			case tar.TypeDir:
				if !same || b.Type != 'd' {
					return nil, false
				}
			case tar.TypeReg:
				data, err := io.ReadAll(tr)
				if err != nil || bytes.IndexByte(data, 0) >= 0 {
					return nil, false
				}
				fresh := uint32(0o666) &^ src.umask
				parent, ok := base[parentOf(p)]
				newOK := !inBase && ok && parent.Type == 'd' && uint32(h.Mode&0o7777) == fresh && h.Uid == src.uid && h.Gid == src.gid
				if !(same && b.Type == 'f') && !newOK {
					return nil, false
				}
				if total += len(data) + len(p); total > inlineMax {
					return nil, false
				}
				out = append(out, fileWrite{Path: p, Data: data})
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// writeScript writes the files with printf, in one command.
func writeScript(ws []fileWrite) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("printf '%s' " + session.Quote(string(w.Data)) + " > " + session.Quote(w.Path) + " || __rbx_e=1\n")
	}
	return b.String()
}
