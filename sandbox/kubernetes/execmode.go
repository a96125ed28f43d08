package kubernetes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"sort"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// execFresh runs req in a new exec (exec mode): nothing persists between
// commands (see session.Fresh).
func (s *Sandbox) execFresh(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	f := session.Fresh[execStatus]{ID: s.id, OutputCap: s.outputCap, Log: s.rt.cfg.log, Host: freshHost{s}}
	return f.Run(ctx, req)
}

// freshHost is what session.Fresh needs of a pod sandbox.
type freshHost struct{ s *Sandbox }

// Start runs the step with the image's shell through freshArgs: an exec
// has no environment of its own to set.
func (h freshHost) Start(ctx context.Context, marker string, req sandbox.ExecRequest, out io.Writer) (session.Proc[execStatus], error) {
	s := h.s
	if err := session.CheckEnv(req.Env); err != nil {
		return session.Proc[execStatus]{}, err
	}
	sh, err := s.execShell(ctx)
	if err != nil {
		return session.Proc[execStatus]{}, s.gone(ctx, err)
	}
	// The exec is dialled after runErr returns: the wrapper's first
	// stderr line says when the step runs (session.StartedWriter).
	errOut := session.NewStartedWriter(out, marker+"\n")
	pr, err := s.runErr(ctx, s.freshArgs(sh, marker, req), nil, out, errOut)
	if err != nil {
		return session.Proc[execStatus]{}, s.gone(ctx, err)
	}
	return session.Proc[execStatus]{
		Status: pr.status,
		Finish: func(st execStatus) (int, error) {
			_ = errOut.Flush() // out is an in-memory cap writer
			return st.code, st.err
		},
		Stop:    func() { pr.stop(); _ = errOut.Flush() },
		Close:   pr.cancel,
		Started: errOut.Started(),
	}, nil
}

func (h freshHost) Gone(ctx context.Context, err error) error { return h.s.gone(ctx, err) }

// Ended: a step that died of a signal may have died with its pod.
func (h freshHost) Ended(ctx context.Context, res *sandbox.ExecResult) error {
	if res.ExitCode < 128 {
		return nil
	}
	if gerr := h.s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
		return gerr
	}
	h.s.markOOM(ctx, res)
	return nil
}

func (h freshHost) Kill(ctx context.Context, marker string) error {
	return session.Sh(h.s.sh).KillStep(ctx, marker)
}

// freshArgs is the exec-mode command line: the wrapper exports the step
// marker and req.Env, so that they are in the environment the step's shell
// starts with (where KillScript finds the marker), prints the marker to
// stderr (the step runs: its timeout counts from there), then execs sh -c
// with the step (session.FreshScript).
func (s *Sandbox) freshArgs(sh, marker string, req sandbox.ExecRequest) []string {
	keys := make([]string, 0, len(req.Env))
	for k := range req.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	exports := "export RBX_STEP=" + marker
	for _, k := range keys {
		exports += " " + k + "=" + session.Quote(req.Env[k])
	}
	return []string{"/bin/sh", "-c", s.wrap() + exports + `; echo "$RBX_STEP" >&2; exec "$0" -c "$1"`, sh, session.FreshScript(req)}
}

// execShell returns bash when the image has it, /bin/sh otherwise, probing
// with the image's own sh and PATH.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	return s.shell.Shell(ctx, func(ctx context.Context) ([]byte, error) {
		var out session.LockedBuffer
		pr, err := s.run(ctx, []string{"/bin/sh", "-c", session.ProbeScript}, nil, &out)
		if err != nil {
			return nil, err
		}
		defer pr.cancel()
		select {
		case st := <-pr.status:
			return out.Bytes(), st.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
