package capacity

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Share is the part of the machine's memory the default budget plans for:
// the rest is left to the host, the engine and rbx itself.
const Share = 0.75

// Default is the budget a machine of memTotal bytes affords when every
// sandbox may use up to perSandbox bytes (its memory limit): the budget
// holds even if every sandbox reaches its limit at once, so the host is
// never out of memory. It is at least 1.
func Default(memTotal, perSandbox int64) int {
	if perSandbox <= 0 || memTotal <= 0 {
		return 1
	}
	return max(1, int(float64(memTotal)*Share/float64(perSandbox)))
}

// MemTotal reads the machine's memory from /proc/meminfo.
func MemTotal() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read machine memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "MemTotal" {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("/proc/meminfo: MemTotal %q: expected \"N kB\"", strings.TrimSpace(v))
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/meminfo: MemTotal: %w", err)
		}
		return n << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read /proc/meminfo: %w", err)
	}
	return 0, fmt.Errorf("/proc/meminfo: no MemTotal line")
}
