package server_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procStatus reads the Name and VmRSS (in bytes) of a /proc/PID/status
// document; a kernel thread or a zombie has no VmRSS line: rss 0.
func procStatus(data []byte) (name string, rss int64, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Name":
			name = val
		case "VmRSS":
			num, unit, _ := strings.Cut(val, " ")
			kib, err := strconv.ParseInt(num, 10, 64)
			if err != nil || strings.TrimSpace(unit) != "kB" {
				return "", 0, fmt.Errorf("VmRSS %q: want <n> kB", val)
			}
			rss = kib << 10
		}
	}
	if name == "" {
		return "", 0, errors.New("status: no Name line")
	}
	return name, rss, sc.Err()
}

// memSample is one reading of the memory the benchmark charges to rbx:
// every containerd-shim* process plus the rbx server itself.
type memSample struct {
	Total  int64 // bytes: shims + rbx
	RBX    int64 // bytes: the rbx server process alone
	Shims  int   // containerd-shim* processes counted
	Server bool  // whether the server's own status was read
}

// readMem sums VmRSS under procRoot (/proc) for every process whose
// name starts with containerd-shim and for pid. Processes that exit
// between the listing and the read are skipped.
func readMem(procRoot string, pid int) (memSample, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return memSample{}, fmt.Errorf("read %s: %w", procRoot, err)
	}
	var m memSample
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "status"))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue
		} else if err != nil {
			return memSample{}, fmt.Errorf("read status of %d: %w", n, err)
		}
		name, rss, err := procStatus(data)
		if err != nil {
			return memSample{}, fmt.Errorf("status of %d: %w", n, err)
		}
		switch {
		case n == pid:
			m.RBX, m.Server = rss, true
			m.Total += rss
		case strings.HasPrefix(name, "containerd-shim"):
			m.Shims++
			m.Total += rss
		}
	}
	return m, nil
}
