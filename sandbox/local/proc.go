package local

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// killByEnv sends SIGKILL to every process whose initial environment holds
// the exact entry (for example RBX_STEP=<marker> or RBX_ROOT=<root>), and
// repeats while it finds some, so children forked during a round are caught
// by the next. It returns how many processes it signalled.
func killByEnv(entry string) int {
	// A process caught between fork and exec, or mid-exec, can be missed by
	// one scan (its environ is briefly unreadable); stop only after two
	// consecutive scans found nothing.
	total, quiet := 0, 0
	for range 10 {
		n := killByEnvOnce([]byte(entry))
		total += n
		if quiet = quiet + 1; n > 0 {
			quiet = 0
		}
		if quiet == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return total
}

func killByEnvOnce(entry []byte) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	_ = d.Close()
	self := os.Getpid()
	n := 0
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		// Processes of other users are unreadable and skipped, which is
		// what we want: we may only kill our own.
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil || !hasEntry(env, entry) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// hasEntry reports whether the NUL-separated environ block holds entry.
func hasEntry(environ, entry []byte) bool {
	for len(environ) > 0 {
		var e []byte
		e, environ, _ = bytes.Cut(environ, []byte{0})
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// exitStatus is st's status as a shell reports it: the exit code, or 128+n
// for a process killed by signal n (as the docker backend reports it too).
func exitStatus(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
