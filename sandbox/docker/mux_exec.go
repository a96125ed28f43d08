package docker

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// muxFreshHost starts a recyclable sandbox's exec-mode steps (a verifier)
// through PID 1's mux instead of an exec: as the user, in the directory
// and with the environment the engine gave the first session shell (see
// agent.Whois), which is what it gives every exec of the sandbox.
type muxFreshHost struct {
	freshHost
	spec agent.SessionSpec
}

// muxSpec is how PID 1 spawns a process as the sandbox's exec user (the
// first session shell's spec); ok is false without a mux or a spec.
func (s *Sandbox) muxSpec() (sp agent.SessionSpec, ok bool) {
	if s.rec == nil || s.rec.shell == nil || !s.mux.alive() {
		return sp, false
	}
	return *s.rec.shell, true
}

// freshHostFor is how req's exec-mode step starts in s.
func (s *Sandbox) freshHostFor() session.FreshHost[struct{}] {
	if sp, ok := s.muxSpec(); ok {
		return muxFreshHost{freshHost: freshHost{s}, spec: sp}
	}
	return freshHost{s}
}

func (h muxFreshHost) Start(ctx context.Context, marker string, req sandbox.ExecRequest, out io.Writer) (session.Proc[struct{}], error) {
	s := h.s
	sh, err := s.execShell(ctx)
	if err != nil {
		return session.Proc[struct{}]{}, s.gone(ctx, err)
	}
	sp := h.spec
	sp.Path, sp.Argv = sh, []string{sh, "-c", session.FreshScript(req)}
	sp.Env = withEnv(sp.Env, append(envList(req.Env), "RBX_STEP="+marker))
	mc, err := s.mux.open(agent.OpenRequest{Op: "spawn", Spawn: &sp})
	if err != nil {
		return session.Proc[struct{}]{}, err
	}
	_ = mc.CloseWrite() // as an exec attached without stdin
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(out, mc)
	}()
	return session.Proc[struct{}]{
		Status: done,
		Finish: func(struct{}) (int, error) {
			st, err := mc.Wait(ctx)
			switch {
			case err != nil:
				return 0, err
			case st.Err != "":
				return 0, fmt.Errorf("agent mux: %s", st.Err)
			}
			return st.Code, nil
		},
		Stop: func() {
			select {
			case <-done:
			case <-time.After(killGrace):
			}
		},
		Close: mc.Close,
	}, nil
}

// withEnv is env with add's KEY=value pairs set, later ones winning, as
// the engine sets an exec's Env over the container's.
func withEnv(env [][]byte, add []string) [][]byte {
	keys := map[string]bool{}
	for _, kv := range add {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([][]byte, 0, len(env)+len(add))
	for _, kv := range env {
		k, _, _ := strings.Cut(string(kv), "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	for _, kv := range add {
		out = append(out, []byte(kv))
	}
	return out
}

// muxShort runs argv to completion through PID 1's mux as the sandbox's
// exec user (see muxFreshHost) and returns its output, merged (the first
// MiB); ok is false when there is no mux to run it.
func (s *Sandbox) muxShort(ctx context.Context, argv ...string) (out []byte, code int, ok bool, err error) {
	buf := &sandbox.CapWriter{Limit: 1 << 20}
	code, err = s.muxRun(ctx, argv, nil, buf)
	if err == errNoMux {
		return nil, 0, false, nil
	}
	if err != nil {
		return buf.Result(sandbox.ExecResult{}).Output, 0, true, fmt.Errorf("run %q: %w", argv[0], err)
	}
	return buf.Result(sandbox.ExecResult{}).Output, code, true, nil
}

// errNoMux: the sandbox has no PID 1 mux to spawn a process through.
var errNoMux = fmt.Errorf("no mux")

// muxRun runs argv to completion as the sandbox's exec user through PID
// 1's mux, with data on its stdin (nil: none), its merged output to out.
func (s *Sandbox) muxRun(ctx context.Context, argv []string, data []byte, out io.Writer) (int, error) {
	sp, ok := s.muxSpec()
	if !ok {
		return 0, errNoMux
	}
	sp.Path, sp.Argv = argv[0], argv
	mc, err := s.mux.open(agent.OpenRequest{Op: "spawn", Spawn: &sp})
	if err != nil {
		return 0, err
	}
	defer mc.Close()
	stop := context.AfterFunc(ctx, func() { mc.fail(ctx.Err()) })
	defer stop()
	go func() {
		if len(data) > 0 {
			_, _ = mc.Write(data) // a script that stopped reading fails it: its status tells
		}
		_ = mc.CloseWrite()
	}()
	_, rerr := io.Copy(out, mc)
	st, err := mc.Wait(ctx)
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case st.Err != "":
		return 0, fmt.Errorf("agent mux: %s", st.Err)
	}
	return st.Code, nil
}
