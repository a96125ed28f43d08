package sandbox

import "sync"

// exitSIGKILL is the status of a process killed by SIGKILL, which is how
// the kernel's OOM killer ends one.
const exitSIGKILL = 128 + 9

// MarkOOM sets res.OOMKilled when the step ended with SIGKILL's status and
// the sandbox's OOM-kill counter grew past *seen, its value when last
// read; it then records the new value in *seen. count reads the counter
// (-1 when it cannot), and is called only for a step that ended with
// status 137, so that the common path costs nothing. mu guards *seen: a
// backend keeps it with other state of its sandbox. *seen starts at 0 for
// a sandbox created by this process and at -1 for one opened, whose
// earlier count is unknown, so that any OOM kill on record then counts.
func MarkOOM(res *ExecResult, mu *sync.Mutex, seen *int64, count func() int64) {
	if res.ExitCode != exitSIGKILL || res.TimedOut {
		return
	}
	n := count()
	mu.Lock()
	defer mu.Unlock()
	if n > *seen && n > 0 {
		res.OOMKilled = true
	}
	*seen = max(*seen, n)
}
