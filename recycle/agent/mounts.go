package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Mount is one line of /proc/self/mounts.
type Mount struct {
	Point    []byte
	FSType   string
	ReadOnly bool
}

// skipTypes are filesystems that hold kernel state, not files a policy
// left: never listed (POSIX queues are removed, not listed: see ipc.go).
var skipTypes = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true, "devpts": true, "mqueue": true,
	"securityfs": true, "debugfs": true, "tracefs": true, "bpf": true, "fusectl": true,
	"configfs": true, "pstore": true, "autofs": true, "binfmt_misc": true, "hugetlbfs": true,
}

// ReadMounts parses /proc/self/mounts.
func ReadMounts() ([]Mount, error) {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	return ParseMounts(data)
}

// ParseMounts parses the mounts table format: octal escapes (\040) in the
// mount point are decoded.
func ParseMounts(data []byte) ([]Mount, error) {
	var out []Mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			return nil, fmt.Errorf("mounts: short line %q", sc.Text())
		}
		p, err := unescapeMount(f[1])
		if err != nil {
			return nil, err
		}
		ro := false
		for _, o := range strings.Split(f[3], ",") {
			ro = ro || o == "ro"
		}
		out = append(out, Mount{Point: p, FSType: f[2], ReadOnly: ro})
	}
	return out, sc.Err()
}

func unescapeMount(s string) ([]byte, error) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err != nil {
				return nil, fmt.Errorf("mounts: bad escape in %q", s)
			}
			b = append(b, byte(v))
			i += 3
			continue
		}
		b = append(b, s[i])
	}
	return b, nil
}

// under reports whether p is dir or inside it.
func under(p []byte, dir string) bool {
	return string(p) == dir || bytes.HasPrefix(p, []byte(dir+"/"))
}

// Writable returns the mounts a scan lists, sorted by mount point, and the
// set of every mount point (the walk enters one only when its mount is
// listed). The last mount on a point is the visible one. Read-only mounts,
// kernel filesystems, /proc, /sys and self (the agent's own mount point)
// are not listed.
func Writable(mounts []Mount, self string) (listed []Mount, points map[string]bool) {
	byPoint := map[string]Mount{}
	points = map[string]bool{}
	for _, m := range mounts {
		byPoint[string(m.Point)] = m
		points[string(m.Point)] = true
	}
	for _, m := range byPoint {
		switch {
		case m.ReadOnly, skipTypes[m.FSType], string(m.Point) == self:
		case under(m.Point, "/proc"), under(m.Point, "/sys"):
		default:
			listed = append(listed, m)
		}
	}
	sort.Slice(listed, func(i, j int) bool { return bytes.Compare(listed[i].Point, listed[j].Point) < 0 })
	return listed, points
}
