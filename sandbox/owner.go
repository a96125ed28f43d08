package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// newOwner returns "<host>_<pid>_<start>" for this process, where start is
// the process start time in clock ticks since boot (field 22 of
// /proc/<pid>/stat). A pid is recycled, its start time is not: OwnerAlive
// compares both, so a new process that happens to get a dead owner's pid is
// not mistaken for it. Without /proc the start time is "0" (unverifiable).
// Hostnames hold no '_', so the id splits unambiguously.
func newOwner() string {
	host, _ := os.Hostname()
	start, _, err := procStart(os.Getpid())
	if err != nil {
		start = "0"
	}
	return fmt.Sprintf("%s_%d_%s", ownerHost(host), os.Getpid(), start)
}

// maxOwnerHost keeps an owner id within a label value's 63 characters: pid
// (at most 7 digits), start time (at most 20) and two separators take 29.
const maxOwnerHost = 34

// ownerHost returns host as an owner id holds it: unchanged when it is short
// and label-legal, else shortened by LabelValue.
func ownerHost(host string) string {
	if host == "" {
		return "unknown"
	}
	if len(host) <= maxOwnerHost && ValidLabelValue(host) {
		return host
	}
	v := LabelValue(host)
	if len(v) > maxOwnerHost {
		v = v[:maxOwnerHost-9] + v[len(v)-9:] // keep the hash
	}
	return v
}

// ParseOwner splits an owner id made by this package into its host (as
// ownerHost wrote it), pid and start time. The "<host>/<pid>/<start>" form
// of older rbx versions parses too; other ids do not.
func ParseOwner(owner string) (host string, pid int, start string, ok bool) {
	sep := byte('_')
	if strings.IndexByte(owner, '/') >= 0 {
		sep = '/'
	}
	i := strings.LastIndexByte(owner, sep)
	if i <= 0 {
		return "", 0, "", false
	}
	start = owner[i+1:]
	rest := owner[:i]
	j := strings.LastIndexByte(rest, sep)
	if j <= 0 {
		return "", 0, "", false
	}
	pid, err := strconv.Atoi(rest[j+1:])
	if err != nil || pid <= 0 || start == "" {
		return "", 0, "", false
	}
	return rest[:j], pid, start, true
}

// OwnerAlive reports whether the process that owner (an rbx.owner label)
// names is still running, and whether it ran on this host. Only an owner of
// this host can be found dead: an owner of another host, or an id that does
// not parse, is reported alive (with sameHost false) because nothing here can
// tell. A same-host owner is dead when its pid no longer exists, is a zombie,
// or now belongs to a process started at another time.
func OwnerAlive(owner string) (alive, sameHost bool) {
	host, pid, start, ok := ParseOwner(owner)
	if !ok {
		return true, false
	}
	if h, _ := os.Hostname(); h != host && ownerHost(h) != host {
		return true, false
	}
	got, zombie, err := procStart(pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	case err != nil:
		return true, true // /proc unreadable: cannot tell
	case zombie:
		return false, true
	case start == "0":
		return true, true // recorded without /proc: the pid exists, assume it is the owner
	}
	return got == start, true
}

// OwnerDead decides whether owner (an rbx.owner label) is dead. An owner
// of this host is judged by /proc (OwnerAlive), at once and exactly. Any
// other is judged by its heartbeat in beats (see HeartbeatStore): dead
// when the last one is more than maxAge before now. An owner of another
// host without a heartbeat (an older rbx, a backend that keeps none) is
// taken for alive, because nothing can tell.
func OwnerDead(owner string, beats map[string]time.Time, now time.Time, maxAge time.Duration) bool {
	if alive, sameHost := OwnerAlive(owner); sameHost {
		return !alive
	}
	beat, ok := beats[owner]
	return ok && now.Sub(beat) > maxAge
}

// procStart returns field 22 (starttime) of /proc/pid/stat and whether the
// process is a zombie. The command name (field 2) may hold spaces and
// parentheses, so fields are counted after its last ')'.
func procStart(pid int) (start string, zombie bool, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false, fmt.Errorf("parse /proc/%d/stat: no command name", pid)
	}
	// After ")": field 3 (state) is index 0, so field 22 is index 19.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", false, fmt.Errorf("parse /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return f[19], f[0] == "Z" || f[0] == "X", nil
}
