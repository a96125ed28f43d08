package agent

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// reaper is PID 1's wait4(-1) loop: it reaps every exited process (orphans
// of the sandbox included) and hands the status of its own children to
// whoever started them. Children start under the same lock the reaping
// holds, so a child that exits at once is not reaped before it is waited
// for.
type reaper struct {
	mu    sync.Mutex
	waits map[int]chan unix.WaitStatus
}

func newReaper() *reaper { return &reaper{waits: map[int]chan unix.WaitStatus{}} }

// start starts argv[0] at path with attr and returns its pid and where its
// status arrives.
func (r *reaper) start(path string, argv []string, attr *os.ProcAttr) (int, <-chan unix.WaitStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := os.StartProcess(path, argv, attr)
	if err != nil {
		return 0, nil, err
	}
	pid := p.Pid
	ch := make(chan unix.WaitStatus, 1)
	r.waits[pid] = ch
	_ = p.Release() // the reaper waits for it, not os.Process (Release clears p.Pid)
	return pid, ch, nil
}

// signal sends sig to pid's process group while pid is still unreaped
// (after its reaping, the group id may be another's).
func (r *reaper) signal(pid int, sig unix.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.waits[pid]; ok {
		_ = unix.Kill(-pid, sig)
	}
}

// reap collects every exited child without blocking.
func (r *reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
		if ch, ok := r.waits[pid]; ok {
			ch <- ws
			delete(r.waits, pid)
		}
	}
}

// exitCode is how the engine reports an exec's end: the code, or 128+N
// for signal N.
func exitCode(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
