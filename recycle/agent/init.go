package agent

import (
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
// so that stopping the container still works. With -mux it serves the
// host's channels (see MuxOpen) on stdin and stdout.
func Init(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	mux := len(args) > 0 && args[0] == "-mux"
	if mux {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	// The Go runtime would exit on these; a policy sending them to PID 1
	// must not end the container. They are caught, not ignored: an ignored
	// signal stays ignored in the processes PID 1 spawns, a caught one is
	// reset by their exec.
	quiet := make(chan os.Signal, 16)
	signal.Notify(quiet, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGPIPE, unix.SIGALRM,
		unix.SIGVTALRM, unix.SIGPROF, unix.SIGXCPU, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU)
	go func() {
		for range quiet {
		}
	}()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGCHLD)
	rp := newReaper()
	child := 0
	if len(args) > 0 {
		pid, _, err := rp.start(args[0], args, &os.ProcAttr{
			Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys:   &syscall.SysProcAttr{Setpgid: true},
		})
		if err != nil {
			fmt.Fprintf(stderr, "rbx-agent init: %v\n", err)
		} else {
			child = pid
		}
	}
	if mux {
		go func() {
			err := serveMux(rp, stdin, stdout)
			fmt.Fprintf(stderr, "rbx-agent init: mux: %v\n", err)
		}()
	}
	for s := range sigs {
		if s == unix.SIGCHLD {
			rp.reap()
			continue
		}
		if child > 0 {
			_ = unix.Kill(-child, s.(syscall.Signal))
		}
		return 128 + int(s.(syscall.Signal))
	}
	return 0
}
