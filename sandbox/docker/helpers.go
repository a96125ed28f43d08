package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// killStep kills every process of a timed-out step, best effort.
func (s *Sandbox) killStep(ctx context.Context, marker string) {
	ctx, cancel := context.WithTimeout(ctx, killGrace)
	defer cancel()
	if _, _, err := s.runShort(ctx, "/bin/sh", "-c", session.KillScript(marker)); err != nil {
		s.rt.log.Warn("kill timed-out step", "sandbox", s.id, "err", err)
	}
}

// execShell returns bash when the image has it, /bin/sh otherwise, probing
// once per sandbox.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	s.shMu.Lock()
	defer s.shMu.Unlock()
	if s.shell != "" {
		return s.shell, nil
	}
	out, _, err := s.runShort(ctx, "/bin/sh", "-c", "command -v bash || true")
	if err != nil {
		return "", fmt.Errorf("detect shell: %w", err)
	}
	s.shell = "/bin/sh"
	if p := strings.TrimSpace(string(out)); strings.HasPrefix(p, "/") {
		s.shell = p
	}
	return s.shell, nil
}

// resolve makes p absolute against the workdir; empty means the workdir.
func (s *Sandbox) resolve(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(s.workdir, p)
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

// newMarker returns a unique RBX_STEP value for one exec-mode command. The
// trailing dash keeps one marker from being a prefix of another.
func newMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "x" + hex.EncodeToString(b[:]) + "-"
}
