// Command ipcobjects creates one SysV shared memory segment, semaphore set
// and message queue and exits: the hostile recycle test's stand-in for
// ipcmk on images without it (built static by the test).
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	if _, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600); err != nil {
		fmt.Fprintln(os.Stderr, "shmget:", err)
		os.Exit(1)
	}
	if _, _, e := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 2, unix.IPC_CREAT|0o600); e != 0 {
		fmt.Fprintln(os.Stderr, "semget:", e)
		os.Exit(1)
	}
	if _, _, e := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "msgget:", e)
		os.Exit(1)
	}
}
