package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Entry is one filesystem entry of a listing. Paths and link targets are
// raw bytes (base64 in JSON), so a name holding a newline or invalid UTF-8
// survives the trip unchanged.
type Entry struct {
	Path []byte `json:"p"`
	// Type is one of the Type* letters.
	Type string `json:"t"`
	// Mode is the permission and set-id/sticky bits (st_mode & 07777).
	Mode uint32 `json:"m"`
	UID  uint32 `json:"u"`
	GID  uint32 `json:"g"`
	Size int64  `json:"s"`
	// Link is a symlink's target.
	Link []byte `json:"l,omitempty"`
	// Rdev is a device node's device number.
	Rdev  uint64 `json:"r,omitempty"`
	Ctime int64  `json:"c"`
	Mtime int64  `json:"mt"`
	Ino   uint64 `json:"i"`
	Dev   uint64 `json:"d"`
	// MountRoot is set for the root of a mount (a bind-mounted file such as
	// /etc/hosts cannot be unlinked, only rewritten in place).
	MountRoot bool `json:"mr,omitempty"`
	// Xattrs are every extended attribute the agent can read, sorted by
	// name; nil (and nothing on the wire) for the usual entry without.
	Xattrs []Xattr `json:"x,omitempty"`
	// Flags are a file's or directory's inode flags, FlagsCompared only;
	// NoFlags says its filesystem has none (FS_IOC_GETFLAGS: ENOTTY or
	// EOPNOTSUPP).
	Flags   uint32 `json:"fl,omitempty"`
	NoFlags bool   `json:"nf,omitempty"`
	// Nlink is a regular file's link count (0 for other types: a
	// directory's depends on the filesystem's history).
	Nlink uint32 `json:"n,omitempty"`
}

// Entry types.
const (
	TypeFile    = "f"
	TypeDir     = "d"
	TypeSymlink = "l"
	TypeChar    = "c"
	TypeBlock   = "b"
	TypeFifo    = "p"
	TypeSocket  = "s"
)

// Sum is the SHA-256 of a file apply wrote.
type Sum struct {
	Path   []byte `json:"p"`
	SHA256 string `json:"h"`
}

// State is what the agent saw of processes and IPC after its kill loop.
type State struct {
	// Others counts processes other than PID 1 and the agent.
	Others int `json:"o"`
	// IPC counts SysV IPC objects and POSIX queues left.
	IPC int `json:"ipc"`
	// Killed counts processes the agent saw and killed.
	Killed int `json:"k"`
	// IPCRemoved counts IPC objects removed.
	IPCRemoved int `json:"ir"`
}

// Kept is the content of a small mount-root file (scan -keep).
type Kept struct {
	Path []byte `json:"p"`
	Data []byte `json:"b"`
}

// Report is the output of scan, and each frame of a recycle.
type Report struct {
	Entries []Entry
	Sums    []Sum
	Kept    []Kept
	// Missing are the indexes (in the Proven sent) of proven entries a
	// recycle's walk did not find.
	Missing []int
	State   State
}

// line is one JSON line of a report; End closes it with the entry count,
// so a truncated stream is an error rather than a shorter listing.
type line struct {
	E     *Entry `json:"e,omitempty"`
	S     *Sum   `json:"s,omitempty"`
	K     *Kept  `json:"k,omitempty"`
	Mi    *int   `json:"mi,omitempty"`
	St    *State `json:"st,omitempty"`
	End   bool   `json:"end,omitempty"`
	Count int    `json:"n,omitempty"`
}

// WriteReport writes r as JSON lines ending with the end record.
func WriteReport(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	for i := range r.Entries {
		if err := enc.Encode(line{E: &r.Entries[i]}); err != nil {
			return err
		}
	}
	for i := range r.Sums {
		if err := enc.Encode(line{S: &r.Sums[i]}); err != nil {
			return err
		}
	}
	for i := range r.Kept {
		if err := enc.Encode(line{K: &r.Kept[i]}); err != nil {
			return err
		}
	}
	for i := range r.Missing {
		if err := enc.Encode(line{Mi: &r.Missing[i]}); err != nil {
			return err
		}
	}
	st := r.State
	if err := enc.Encode(line{St: &st}); err != nil {
		return err
	}
	return enc.Encode(line{End: true, Count: len(r.Entries)})
}

// MaxKept bounds a kept file; maxLine bounds one JSON line (a path is at
// most 4096 bytes, a kept file MaxKept, base64 adds a third).
const (
	MaxKept = 256 << 10
	maxLine = 2 * MaxKept
)

// ReadReport parses a report, checking every entry (see Entry.Check), that
// no path repeats, and that the stream ends with its end record.
func ReadReport(rd io.Reader) (Report, error) {
	var r Report
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		var l line
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return Report{}, fmt.Errorf("report line %d: %w", n, err)
		}
		switch {
		case l.End:
			if l.Count != len(r.Entries) {
				return Report{}, fmt.Errorf("report: %d entries, end record says %d", len(r.Entries), l.Count)
			}
			return r, nil
		case l.E != nil:
			if err := l.E.Check(); err != nil {
				return Report{}, fmt.Errorf("report line %d: %w", n, err)
			}
			if seen[string(l.E.Path)] {
				return Report{}, fmt.Errorf("report line %d: path %q twice", n, l.E.Path)
			}
			seen[string(l.E.Path)] = true
			r.Entries = append(r.Entries, *l.E)
		case l.S != nil:
			if err := CheckPath(l.S.Path); err != nil {
				return Report{}, fmt.Errorf("report line %d: %w", n, err)
			}
			r.Sums = append(r.Sums, *l.S)
		case l.K != nil:
			if err := CheckPath(l.K.Path); err != nil {
				return Report{}, fmt.Errorf("report line %d: %w", n, err)
			}
			r.Kept = append(r.Kept, *l.K)
		case l.Mi != nil:
			if *l.Mi < 0 {
				return Report{}, fmt.Errorf("report line %d: missing index %d", n, *l.Mi)
			}
			r.Missing = append(r.Missing, *l.Mi)
		case l.St != nil:
			r.State = *l.St
		default:
			return Report{}, fmt.Errorf("report line %d: empty record", n)
		}
	}
	if err := sc.Err(); err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	return Report{}, errors.New("report: truncated (no end record)")
}
