package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// sysvIPC are the /proc/sysvipc tables, each with the column of the id.
var sysvIPC = []struct {
	name string
	col  int
	rm   func(id int) error
}{
	{"shm", 1, func(id int) error { _, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil); return err }},
	{"sem", 1, func(id int) error {
		_, _, e := unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
		return errnoErr(e)
	}},
	{"msg", 1, func(id int) error {
		_, _, e := unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0)
		return errnoErr(e)
	}},
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// mqueueDir is where POSIX message queues show when mounted.
const mqueueDir = "/dev/mqueue"

// IPCObjects returns one line per SysV IPC object ("shm <line>") and POSIX
// queue ("mq <name>").
func IPCObjects() ([]string, error) {
	var out []string
	for _, t := range sysvIPC {
		rows, err := ipcRows(t.name)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, t.name+" "+strings.Join(r, " "))
		}
	}
	ents, err := os.ReadDir(mqueueDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		out = append(out, "mq "+strconv.Quote(e.Name()))
	}
	return out, nil
}

// ipcRows returns the rows of /proc/sysvipc/name without its header.
func ipcRows(name string) ([][]string, error) {
	data, err := os.ReadFile("/proc/sysvipc/" + name)
	if err != nil {
		return nil, fmt.Errorf("read sysvipc %s: %w", name, err)
	}
	var rows [][]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for first := true; sc.Scan(); first = false {
		if f := strings.Fields(sc.Text()); !first && len(f) > 1 {
			rows = append(rows, f)
		}
	}
	return rows, sc.Err()
}

// RemoveIPC removes every SysV IPC object and POSIX queue; it returns how
// many it removed.
func RemoveIPC() (int, error) {
	n := 0
	for _, t := range sysvIPC {
		rows, err := ipcRows(t.name)
		if err != nil {
			return n, err
		}
		for _, r := range rows {
			id, err := strconv.Atoi(r[t.col])
			if err != nil {
				return n, fmt.Errorf("sysvipc %s: bad id %q", t.name, r[t.col])
			}
			if err := t.rm(id); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EIDRM) {
				return n, fmt.Errorf("remove %s %d: %w", t.name, id, err)
			}
			n++
		}
	}
	ents, err := os.ReadDir(mqueueDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return n, err
	}
	for _, e := range ents {
		if err := unix.Unlinkat(unix.AT_FDCWD, mqueueDir+"/"+e.Name(), 0); err != nil {
			return n, fmt.Errorf("remove queue %q: %w", e.Name(), err)
		}
		n++
	}
	return n, nil
}
