package kubernetes

import (
	"context"
	"errors"
	"io"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// supervisor runs the session shell (bash where the image has it), then
// prints its exit status with the exit marker, so that the loss is seen at
// once even when background jobs keep the output stream open; it is the
// containerd backend's supervisor (see there), after the ulimits and the
// workdir (an exec has no cwd or rlimits of its own), with one difference:
// its stderr stays open (openSession discards what it prints, such as
// busybox sh's "Killed"), because the exec stream's stdin ends once no
// process holds the exec's stderr.
func (s *Sandbox) supervisor() []string {
	return []string{"/bin/sh", "-c", session.SupervisorKeepingStderr(s.wrap())}
}

// firstSupervisor is the supervisor of a plain session pod's first shell,
// which checks the tools first (see startSession).
func (s *Sandbox) firstSupervisor() []string {
	return []string{"/bin/sh", "-c", session.SupervisorKeepingStderr(s.firstCheck() + s.wrap())}
}

// openSession starts a supervised session shell in an exec and runs the
// protocol's handshake on it. A shell that exits during the handshake is
// started again (a few times): the kubelet's exec stream sometimes starts
// a process whose stdin is already at its end (see fileExec), and a shell
// on such a stdin exits at once.
func (s *Sandbox) openSession(ctx context.Context) (session.Conn, error) {
	for try := 1; ; try++ {
		c, err := s.openSessionOnce(ctx)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, session.ErrExited) || try == stdinTries || ctx.Err() != nil {
			return nil, err
		}
		s.rt.cfg.log.Debug("session shell ended during the handshake; again", "sandbox", s.id, "try", try, "err", err)
	}
}

func (s *Sandbox) openSessionOnce(ctx context.Context) (session.Conn, error) {
	return session.OpenPipe(ctx, s.starter(s.supervisor()), session.Sh(s.sh).KillStep, session.WithOutputCap(s.outputCap))
}

// starter is the session.StartExec of a pod sandbox running supervisor:
// the exec's stream is closed with the connection, and what the
// supervisor prints on stderr is discarded (see supervisor). When the
// stream ends its stdin is closed too: an exec that failed before it read
// anything (the container not started yet) would otherwise leave the
// handshake's first write blocked on the pipe for good.
func (s *Sandbox) starter(supervisor []string) session.StartExec {
	return func(ctx context.Context, stdin io.Reader, out io.Writer) (func() error, func(), error) {
		pr, err := s.runErr(ctx, supervisor, stdin, out, io.Discard)
		if err != nil {
			return nil, nil, err
		}
		var st execStatus
		ended := make(chan struct{})
		go func() {
			st = <-pr.status
			s.rt.cfg.log.Debug("session stream ended", "sandbox", s.id, "code", st.code, "err", st.err)
			if c, ok := stdin.(interface{ CloseWithError(error) error }); ok {
				_ = c.CloseWithError(errStreamEnded)
			}
			close(ended)
		}()
		wait := func() error {
			<-ended
			return st.err
		}
		return wait, pr.cancel, nil
	}
}

// errStreamEnded is what a write to an ended session exec's stdin gets.
var errStreamEnded = errors.New("session exec ended")

// sh runs one of rbx's own scripts (kills) with the pod's busybox.
func (s *Sandbox) sh(ctx context.Context, script string) error {
	_, _, err := s.runShort(ctx, script, nil, nil)
	return err
}

// Reopen discards the session shell, lost or not, and starts a fresh one:
// it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error { return s.keeper.Reopen(ctx) }

// keeperHost is what the session keeper needs of the sandbox. No
// SettledGoneFn: the API server reports a pod's end as it learns it;
// there is no engine-side settling to wait for.
func (s *Sandbox) keeperHost() session.HostFuncs {
	return session.HostFuncs{OpenFn: s.openSession, CheckRunningFn: s.checkRunning, GoneFn: s.gone, MarkOOMFn: s.markOOM, ShFn: s.sh}
}
