package images

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// removeScratch deletes a debootstrap scratch directory. Mounts debootstrap
// may have left inside it (proc, sys, bind-mounted host /dev nodes) are
// detached first; if any remains, nothing is deleted, because RemoveAll
// would descend into the host's files.
func removeScratch(dir string) error {
	for _, m := range mountsUnder(dir) {
		_ = syscall.Unmount(m, syscall.MNT_DETACH)
	}
	if left := mountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("scratch dir %s kept: still mounted: %s", dir, strings.Join(left, ", "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove scratch dir: %w", err)
	}
	return nil
}

// mountsUnder lists mount points below dir, deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	prefix := filepath.Clean(dir) + "/"
	unescape := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		if mp := unescape.Replace(fields[4]); strings.HasPrefix(mp, prefix) {
			out = append(out, mp)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
