package docker

import (
	"context"
	"sort"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// execShell returns bash when the image has it, /bin/sh otherwise.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	return s.shell.Shell(ctx, func(ctx context.Context) ([]byte, error) {
		if out, _, ok, err := s.muxShort(ctx, "/bin/sh", "-c", session.ProbeScript); ok {
			return out, err
		}
		out, _, err := s.runShort(ctx, "/bin/sh", "-c", session.ProbeScript)
		return out, err
	})
}

// resolve makes p absolute against the workdir; empty means the workdir.
func (s *Sandbox) resolve(p string) string {
	return sandbox.ResolvePath(s.workdir, p)
}

// envList renders env as sorted KEY=value pairs.
func envList(env map[string]string) []string {
	l := make([]string, 0, len(env)+1)
	for k, v := range env {
		l = append(l, k+"="+v)
	}
	sort.Strings(l)
	return l
}
