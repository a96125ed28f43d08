package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// Init runs as the container's PID 1: it starts args after "--" (if any) as
// a child in its own process group, reaps every zombie forever, and stays
// when the child exits (docker-init would exit, ending the container). On
// SIGTERM or SIGINT it forwards the signal to the child's group and exits,
// so that stopping the container still works.
func Init(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	// The Go runtime would exit on these; a policy sending them to PID 1
	// must not end the container.
	signal.Ignore(unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGPIPE, unix.SIGALRM,
		unix.SIGVTALRM, unix.SIGPROF, unix.SIGXCPU, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGCHLD)
	child := 0
	if len(args) > 0 {
		p, err := os.StartProcess(args[0], args, &os.ProcAttr{
			Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys:   &syscall.SysProcAttr{Setpgid: true},
		})
		if err != nil {
			fmt.Fprintf(stderr, "rbx-agent init: %v\n", err)
		} else {
			child = p.Pid
		}
	}
	for s := range sigs {
		if s == unix.SIGCHLD {
			reap()
			continue
		}
		if child > 0 {
			_ = unix.Kill(-child, s.(syscall.Signal))
		}
		return 128 + int(s.(syscall.Signal))
	}
	return 0
}

// reap collects every exited child without blocking.
func reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
	}
}
