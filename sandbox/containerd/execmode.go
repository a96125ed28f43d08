package containerd

import (
	"context"
	"io"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// execFresh runs req in a new exec (exec mode): nothing persists between
// commands (see session.Fresh).
func (s *Sandbox) execFresh(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	f := session.Fresh[client.ExitStatus]{ID: s.id, OutputCap: s.outputCap, Log: s.rt.log, Host: freshHost{s}}
	return f.Run(ctx, req)
}

// freshHost is what session.Fresh needs of a containerd sandbox.
type freshHost struct{ s *Sandbox }

// Start runs the step with the image's shell, its environment and marker
// set on the exec's process.
func (h freshHost) Start(ctx context.Context, marker string, req sandbox.ExecRequest, out io.Writer) (session.Proc[client.ExitStatus], error) {
	s := h.s
	if err := session.CheckEnv(req.Env); err != nil {
		return session.Proc[client.ExitStatus]{}, err
	}
	sh, err := s.execShell(ctx)
	if err != nil {
		return session.Proc[client.ExitStatus]{}, s.gone(ctx, err)
	}
	pr, err := s.run(ctx, []string{sh, "-c", session.FreshScript(req)}, append(envList(req.Env), "RBX_STEP="+marker), s.workdir, nil, out)
	if err != nil {
		return session.Proc[client.ExitStatus]{}, s.gone(ctx, err)
	}
	return session.Proc[client.ExitStatus]{
		Status: pr.status,
		Finish: func(st client.ExitStatus) (int, error) { return pr.finish(ctx, st) },
		Stop:   func() { pr.delete(ctx) },
	}, nil
}

func (h freshHost) Gone(ctx context.Context, err error) error { return h.s.gone(ctx, err) }

// Ended: a step that died of a signal may have died with its container.
func (h freshHost) Ended(ctx context.Context, res *sandbox.ExecResult) error {
	if res.ExitCode < 128 {
		return nil
	}
	if gerr := h.s.goneAfterSignal(context.WithoutCancel(ctx), res.ExitCode); gerr != nil {
		return gerr
	}
	h.s.markOOM(ctx, res)
	return nil
}

func (h freshHost) Kill(ctx context.Context, marker string) error {
	return session.Sh(h.s.sh).KillStep(ctx, marker)
}

// goneAfterSignal checks whether a command that died of a signal died with
// its container; for SIGKILL it waits for the task's exit to be recorded.
func (s *Sandbox) goneAfterSignal(ctx context.Context, code int) error {
	if code == exitSIGKILL {
		return s.settledGone(ctx, 4)
	}
	return s.checkRunning(ctx)
}

// execShell returns bash when the image has it, /bin/sh otherwise.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	return s.shell.Shell(ctx, func(ctx context.Context) ([]byte, error) {
		out, _, err := s.runShort(ctx, "/bin/sh", "-c", session.ProbeScript)
		return out, err
	})
}
