package agent

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Proc is one process seen in /proc.
type Proc struct {
	PID     int
	Comm    string
	State   string
	Cmdline []byte
}

// Procs returns every process in /proc but the caller.
func Procs() ([]Proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		p := Proc{PID: pid}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// comm is in parentheses and may itself hold ")".
		if i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')'); i >= 0 && j > i {
			p.Comm = string(stat[i+1 : j])
			if f := strings.Fields(string(stat[j+1:])); len(f) > 0 {
				p.State = f[0]
			}
		}
		p.Cmdline, _ = os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, p)
	}
	return out, nil
}

// KillAll SIGKILLs every process but PID 1 and the caller (kill(-1) from a
// process other than init does exactly that) until /proc shows none left,
// or returns an error naming the survivors after timeout. It returns how
// many processes it saw at the start.
func KillAll(timeout time.Duration) (int, error) {
	first := -1
	deadline := time.Now().Add(timeout)
	for {
		_ = unix.Kill(-1, unix.SIGKILL) // ESRCH when nothing is left
		procs, err := Procs()
		if err != nil {
			return 0, err
		}
		others := withoutInit(procs)
		if first < 0 {
			first = len(others)
		}
		if len(others) == 0 {
			return first, nil
		}
		if time.Now().After(deadline) {
			var names []string
			for _, p := range others {
				names = append(names, fmt.Sprintf("%d %q %s", p.PID, p.Comm, p.State))
			}
			return first, fmt.Errorf("processes survive SIGKILL after %v: %s", timeout, strings.Join(names, ", "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func withoutInit(procs []Proc) []Proc {
	var out []Proc
	for _, p := range procs {
		if p.PID != 1 {
			out = append(out, p)
		}
	}
	return out
}
