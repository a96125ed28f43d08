package images

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// debianScript runs debootstrap and tidies the rootfs. It is embedded so the
// rbx binary builds images from any directory; scripts/ links to it for
// manual use.
//
//go:embed build-debian-rootfs.sh
var debianScript []byte

// debianSource returns the cached rootfs tarball for r, running debootstrap
// first when the cache has none for r's version.
func debianSource(ctx context.Context, b *Builder, r Recipe) (io.ReadCloser, error) {
	tarPath := b.cachedTar(r)
	f, err := os.Open(tarPath)
	if err == nil {
		b.status("importing cached rootfs %s", tarPath)
		return f, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open cached rootfs: %w", err)
	}
	if err := b.buildDebianTar(ctx, tarPath); err != nil {
		return nil, err
	}
	return os.Open(tarPath)
}

// cachedTar names the rootfs tarball by image and recipe version, so a
// bumped recipe never imports a stale cache.
func (b *Builder) cachedTar(r Recipe) string {
	slug := strings.NewReplacer("/", "-", ":", "-").Replace(r.Name)
	return filepath.Join(b.cfg.cacheDir, "images", fmt.Sprintf("%s-v%d.tar", slug, r.Version))
}

// buildDebianTar runs debootstrap in a scratch directory next to the cache
// and archives the result into tarPath atomically (write, then rename), so
// an interrupted build never leaves a truncated cache entry.
func (b *Builder) buildDebianTar(ctx context.Context, tarPath string) (err error) {
	if _, err := exec.LookPath("debootstrap"); err != nil {
		if err := b.installHostPackages(ctx, "debootstrap"); err != nil {
			return err
		}
	}
	dir := filepath.Dir(tarPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create cache dir: %w", err)
	}
	work, err := os.MkdirTemp(dir, "debootstrap-")
	if err != nil {
		return fmt.Errorf("create scratch dir: %w", err)
	}
	defer func() { err = errors.Join(err, removeScratch(work)) }()
	rootfs := filepath.Join(work, "rootfs")
	logPath := strings.TrimSuffix(tarPath, ".tar") + ".log"
	b.status("running debootstrap into %s (a few minutes; log: %s)", work, logPath)
	start := time.Now()
	if err := b.runDebootstrap(ctx, work, rootfs, logPath); err != nil {
		return err
	}
	b.status("debootstrap done in %s; archiving rootfs", time.Since(start).Round(time.Second))
	return writeTarFile(ctx, rootfs, tarPath)
}

func (b *Builder) runDebootstrap(ctx context.Context, work, rootfs, logPath string) error {
	script := filepath.Join(work, "build-debian-rootfs.sh")
	if err := os.WriteFile(script, debianScript, 0o755); err != nil {
		return fmt.Errorf("write build script: %w", err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create build log: %w", err)
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, "bash", script, rootfs, b.cfg.mirror)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Cancel the whole group politely so the script's trap unmounts /proc
	// and /sys inside the rootfs; removeScratch double-checks.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("debootstrap interrupted: %w", context.Cause(ctx))
		}
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("debootstrap (log %s): %w: %s", logPath, err, tail(string(out), 1500))
	}
	return nil
}

func writeTarFile(ctx context.Context, rootfs, tarPath string) error {
	f, err := os.CreateTemp(filepath.Dir(tarPath), ".rootfs-*.tar")
	if err != nil {
		return fmt.Errorf("create rootfs tarball: %w", err)
	}
	defer os.Remove(f.Name()) // no-op after the rename
	bw := bufio.NewWriterSize(f, 1<<20)
	err = writeRootfsTar(ctx, bw, rootfs)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it 0600
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), tarPath)
	}
	if err != nil {
		return fmt.Errorf("write rootfs tarball: %w", err)
	}
	return nil
}
