package images

import (
	"archive/tar"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
)

// hostBusybox is where Debian's busybox-static puts its binary.
const hostBusybox = "/bin/busybox"

const (
	busyboxPasswd = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"
	busyboxGroup  = "root:x:0:\nnogroup:x:65534:\n"
	// busyboxShadow locks every password; it is root's and no one else
	// may read it (0640), as on Debian: the file a user's read is refused.
	busyboxShadow = "root:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n"
)

// busyboxSource streams a rootfs made of the host's static busybox and one
// symlink per applet. It is built in memory order, so it takes well under a
// second once the binary is there.
func busyboxSource(ctx context.Context, b *Builder, _ Recipe) (io.ReadCloser, error) {
	if err := isStatic(hostBusybox); err != nil {
		b.cfg.log.Info("no static busybox on the host", "err", err)
		if err := b.installHostPackages(ctx, "busybox-static"); err != nil {
			return nil, err
		}
		if err := isStatic(hostBusybox); err != nil {
			return nil, err
		}
	}
	out, err := exec.CommandContext(ctx, hostBusybox, "--list-full").Output()
	if err != nil {
		return nil, fmt.Errorf("list busybox applets: %w", err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBusyboxTar(pw, hostBusybox, strings.Fields(string(out)))) }()
	return pr, nil
}

// isStatic reports an error unless bin is an ELF executable without a
// dynamic loader: Debian's plain busybox package is dynamic and would not
// run in an image that has no libc.
func isStatic(bin string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return fmt.Errorf("busybox: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("busybox: %s is dynamically linked", bin)
		}
	}
	return nil
}

// writeBusyboxTar writes the image's rootfs; applets are paths relative to
// / such as "usr/bin/awk", as printed by `busybox --list-full`.
func writeBusyboxTar(w io.Writer, bin string, applets []string) error {
	data, err := os.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("read busybox: %w", err)
	}
	// The binary's own mtime keeps the layer identical between builds.
	fi, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("read busybox: %w", err)
	}
	links := map[string]bool{"bin/sh": true}
	dirs := map[string]bool{"bin": true, "etc": true}
	for _, a := range applets {
		a = strings.TrimPrefix(path.Clean("/"+a), "/")
		if a == "" || a == "bin/busybox" {
			continue
		}
		links[a] = true
		for d := path.Dir(a); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	tw := tar.NewWriter(w)
	hdrs := []*tar.Header{}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		hdrs = append(hdrs, &tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755})
	}
	hdrs = append(hdrs,
		&tar.Header{Typeflag: tar.TypeDir, Name: "root/", Mode: 0o700},
		&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777},
		&tar.Header{Typeflag: tar.TypeDir, Name: "workspace/", Mode: 0o755})
	for _, l := range slices.Sorted(maps.Keys(links)) {
		hdrs = append(hdrs, &tar.Header{Typeflag: tar.TypeSymlink, Name: l, Linkname: "/bin/busybox", Mode: 0o777})
	}
	files := map[string][]byte{"bin/busybox": data, "etc/passwd": []byte(busyboxPasswd), "etc/group": []byte(busyboxGroup),
		"etc/shadow": []byte(busyboxShadow)}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o644)
		switch name {
		case "bin/busybox":
			mode = 0o755
		case "etc/shadow":
			mode = 0o640
		}
		hdrs = append(hdrs, &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(files[name]))})
	}
	for _, h := range hdrs {
		h.ModTime = fi.ModTime()
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("busybox tar %s: %w", h.Name, err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(files[h.Name]); err != nil {
				return fmt.Errorf("busybox tar %s: %w", h.Name, err)
			}
		}
	}
	return tw.Close()
}
