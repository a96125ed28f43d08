package images

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// installHostPackages installs Debian packages on this machine with apt-get,
// so that a fresh CI machine can build the images without a setup step. A
// first failure is retried after `apt-get update`, because a fresh machine
// often has no package lists yet.
func (b *Builder) installHostPackages(ctx context.Context, pkgs ...string) error {
	b.aptMu.Lock()
	defer b.aptMu.Unlock()
	what := strings.Join(pkgs, " ")
	if os.Geteuid() != 0 {
		return fmt.Errorf("install %s: %w (install it by hand: apt-get install %s)", what, ErrNeedRoot, what)
	}
	b.status("installing host package(s) %s with apt-get", what)
	install := append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)
	if err := b.runApt(ctx, install...); err == nil {
		return nil
	}
	if err := b.runApt(ctx, "update"); err != nil {
		return fmt.Errorf("install %s: %w", what, err)
	}
	if err := b.runApt(ctx, install...); err != nil {
		return fmt.Errorf("install %s: %w", what, err)
	}
	return nil
}

func (b *Builder) runApt(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("apt-get %s: %w: %s", args[0], err, tail(out.String(), 2000))
	}
	b.cfg.log.Debug("apt-get done", "args", args)
	return nil
}

// tail keeps the end of a command's output, where the reason for a failure
// usually is.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
