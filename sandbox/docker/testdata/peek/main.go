// Command peek is the hostile suite's attack on the session shell that
// runs it (its parent): ptrace, its memory, its input, as a step that set
// out to forge its own exit marker would (docs/sessions.md). It prints one
// line per attempt: "<what>: ok" or "<what>: <error>". `peek id` prints
// its effective uid instead (the hostile suite's setuid binary: unlike a
// setuid busybox, it never drops the privilege itself).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "id" {
		fmt.Println(os.Geteuid())
		return
	}
	shell := os.Getppid()
	fmt.Printf("ptrace: %s\n", attach(shell))
	fmt.Printf("mem: %s\n", readMem(shell))
	fmt.Printf("fd0: %s\n", openFD0(shell))
}

// attach attaches to pid and detaches again.
func attach(pid int) string {
	if err := syscall.PtraceAttach(pid); err != nil {
		return err.Error()
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WALL, nil)
	_ = syscall.PtraceDetach(pid)
	return "ok"
}

// readMem reads the first bytes of pid's first readable mapping.
func readMem(pid int) string {
	maps, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return err.Error()
	}
	defer maps.Close()
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return err.Error()
	}
	defer mem.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasPrefix(f[1], "r") {
			continue
		}
		start, err := strconv.ParseUint(strings.Split(f[0], "-")[0], 16, 64)
		if err != nil {
			continue
		}
		buf := make([]byte, 64)
		if _, err := mem.ReadAt(buf, int64(start)); err != nil {
			return err.Error()
		}
		return "ok"
	}
	return "no readable mapping"
}

// openFD0 opens the shell's standard input through /proc.
func openFD0(pid int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/fd/0", pid))
	if err != nil {
		return err.Error()
	}
	_ = f.Close()
	return "ok"
}
