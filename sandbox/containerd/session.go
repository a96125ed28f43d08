package containerd

import (
	"context"
	"io"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// supervisor runs the session shell in an exec and reports its exit
// status (see session.Supervisor).
var supervisor = []string{"/bin/sh", "-c", session.Supervisor("")}

// openSession starts a supervised session shell in an exec and runs the
// protocol's handshake on it.
func (s *Sandbox) openSession(ctx context.Context) (session.Conn, error) {
	return session.OpenPipe(ctx, s.startSupervisor, session.Sh(s.sh).KillStep, session.WithOutputCap(s.outputCap))
}

// startSupervisor is the session.StartExec of a containerd sandbox: the
// exec is deleted once it ended.
func (s *Sandbox) startSupervisor(ctx context.Context, stdin io.Reader, out io.Writer) (func() error, func(), error) {
	pr, err := s.run(ctx, supervisor, nil, s.workdir, stdin, out)
	if err != nil {
		return nil, nil, err
	}
	wait := func() error {
		_, _ = pr.finish(context.Background(), <-pr.status)
		return nil
	}
	return wait, nil, nil
}

// sh runs one of rbx's own scripts (kills) with the image's /bin/sh.
func (s *Sandbox) sh(ctx context.Context, script string) error {
	_, _, err := s.runShort(ctx, "/bin/sh", "-c", script)
	return err
}

// Reopen discards the session shell, lost or not, and starts a fresh one:
// it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error { return s.keeper.Reopen(ctx) }

// keeperHost is what the session keeper needs of the sandbox.
func (s *Sandbox) keeperHost() session.HostFuncs {
	return session.HostFuncs{OpenFn: s.openSession, CheckRunningFn: s.checkRunning, GoneFn: s.gone, MarkOOMFn: s.markOOM, ShFn: s.sh,
		SettledGoneFn: func(ctx context.Context) error { return s.settledGone(ctx, 4) }}
}
