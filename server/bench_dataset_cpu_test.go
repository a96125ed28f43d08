package server_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const userHZ = 100

// cpuCategories are the processes the dataset benchmark charges CPU to,
// in the report's order: the server, the engine's daemons, the shims (and
// the runc processes they reap; a shim that exits is reaped by init, so
// init's reaped time counts here too), the FUSE filesystems of
// fuse-overlayfs, and everything else (the driver, the benchmark itself).
var cpuCategories = []string{"rbx", "dockerd", "containerd", "shims", "fuse-overlayfs", "other"}

// cpuSample is one reading of CPU time, in ticks: the machine's busy time
// (/proc/stat) and each live process's own and reaped children's time.
type cpuSample struct {
	busy  int64
	procs map[int]procCPU
}

type procCPU struct {
	category string
	start    string // the process's start time, to tell a reused pid
	ticks    int64  // own and reaped children's
	// reapedTo, when set, is where the reaped children's part goes
	// (reaped of them): init's orphans are exited shims.
	reapedTo string
	reaped   int64
}

// parseProcStat reads a /proc/PID/stat line: the command name, the start
// time, utime+stime+cutime+cstime and of that cutime+cstime.
func parseProcStat(line string) (comm, start string, ticks, reaped int64, err error) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return "", "", 0, 0, fmt.Errorf("stat %q: no (comm)", clip(line))
	}
	comm = line[open+1 : end]
	f := strings.Fields(line[end+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return "", "", 0, 0, fmt.Errorf("stat %q: %d fields after comm, want 20", clip(line), len(f))
	}
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime (fields 14-17)
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return "", "", 0, 0, fmt.Errorf("stat %q: field %d: %w", clip(line), i+3, err)
		}
		ticks += v
		if i >= 13 {
			reaped += v
		}
	}
	return comm, f[19], ticks, reaped, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// categoryOf names the category of a process.
func categoryOf(pid, server int, comm string) string {
	switch {
	case pid == server:
		return "rbx"
	case comm == "dockerd", comm == "containerd", comm == "fuse-overlayfs":
		return comm
	case strings.HasPrefix(comm, "containerd-shim"):
		return "shims"
	}
	return "other"
}

// parseBusy reads the machine's busy ticks from /proc/stat's cpu line:
// everything but idle and iowait.
func parseBusy(stat string) (int64, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: first line %q, want cpu and 8 counters", clip(line))
	}
	var busy int64
	for i, s := range f[1:9] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: counter %d: %w", i+1, err)
		}
		if i != 3 && i != 4 {
			busy += v
		}
	}
	return busy, nil
}

// readCPU samples procRoot (/proc); server is the rbx server's pid.
func readCPU(procRoot string, server int) (cpuSample, error) {
	stat, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return cpuSample{}, err
	}
	s := cpuSample{procs: map[int]procCPU{}}
	if s.busy, err = parseBusy(string(stat)); err != nil {
		return cpuSample{}, err
	}
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return cpuSample{}, err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue
		} else if err != nil {
			return cpuSample{}, err
		}
		comm, start, ticks, reaped, err := parseProcStat(strings.TrimSpace(string(data)))
		if err != nil {
			return cpuSample{}, err
		}
		p := procCPU{category: categoryOf(pid, server, comm), start: start, ticks: ticks}
		if pid == 1 {
			p.ticks, p.reaped, p.reapedTo = ticks-reaped, reaped, "shims"
		}
		s.procs[pid] = p
	}
	return s, nil
}

// cpuSpent is the CPU seconds between two samples: the machine's busy
// time, and per category what its processes alive at the end spent since
// the first (all of it for those started since). A process that ended in
// between is counted in its parent's reaped time, if the parent was alive
// at both; what no category holds shows as the machine's remainder.
func cpuSpent(a, b cpuSample) (busy float64, by map[string]float64) {
	by = map[string]float64{}
	for pid, p := range b.procs {
		d, r := p.ticks, p.reaped
		if o, ok := a.procs[pid]; ok && o.start == p.start {
			d, r = d-o.ticks, r-o.reaped
		}
		by[p.category] += float64(d) / userHZ
		if p.reapedTo != "" {
			by[p.reapedTo] += float64(r) / userHZ
		}
	}
	return float64(b.busy-a.busy) / userHZ, by
}
