package recycletest

import "strings"

// Episode is what one hostile episode does, as root, before a Recycle.
type Episode struct {
	Name string
	// Cmd runs in the sandbox; {ipc} is replaced by the image's way of
	// creating SysV IPC objects. It must print "ok".
	Cmd string
	// Refused: the design cannot restore this (see docs/recycling.md), so
	// Recycle must return an error and the sandbox is replaced.
	Refused bool
}

// XattrsPath is where an episode finds the static xattrs helper
// (recycletest/xattrs), copied in before it runs.
const XattrsPath = "/tmp/xattrs"

// CapEpisodes are episodes for a sandbox granted CAP_SETFCAP
// (Spec.CapAdd): a file capability (security.capability, v2) set on an
// image binary. The agent has the sandbox's capabilities, SETFCAP
// included, and the changed file is recreated from the image without it.
// With rbx's default capabilities the policy cannot set one at all.
func CapEpisodes(image string) []Episode {
	bin := "/bin/busybox"
	if image == Debian {
		bin = "/usr/bin/yes"
	}
	return Only([]Episode{{"setcap", XattrsPath + " cap " + bin + " && " + XattrsPath + " cap /tmp/xattrs && echo ok", false}})
}

// The images the episodes are written for.
const (
	Busybox = "rbx/busybox:latest"
	Debian  = "rbx/debian:bookworm"
)

// Episodes returns the hostile episodes for image (Busybox or Debian). Each one ends with
// "echo ok" so a step that did not do its damage fails the test.
func Episodes(image string) []Episode {
	evil := `printf '#!/bin/sh\necho owned\n' > /tmp/evil && chmod 755 /tmp/evil && `
	tools := evil + `rm /usr/bin/find && cp /tmp/evil /usr/bin/find && ln -sf /tmp/evil /bin/tar && ln -sf /tmp/evil /bin/sh && echo ok`
	ipc := "/tmp/ipcobjects && /tmp/ipcobjects"
	perms := `chown 65534:65534 /bin/busybox && chmod 4777 /root && chmod 000 /etc && echo ok`
	del := `rm /bin/ls /etc/passwd && ln /etc/group /tmp/hl && echo ok`
	// Trees of the image deleted, emptied and made again (an opaque upper
	// directory), renamed, moved over another: what a walk scoped by the
	// upper layer must still see (docs/recycling.md, scoped walks).
	trees := `rm -rf /usr/sbin && mkdir -p /usr/sbin/new && mv /usr/bin /tmp/ub && mkdir /usr/bin && echo ok`
	bin := "/bin/busybox"
	// Hard links of the image: busybox's applets are symlinks, so only a
	// new link to an image file (delete, touch-back) is tried there.
	links := `ln /etc/passwd /tmp/pw && ln /etc/passwd /etc/pw2 && echo ok`
	if image == Debian {
		tools = evil + `cp /tmp/evil /usr/bin/find && cp /usr/bin/true /bin/tar && ln -sf /tmp/evil /bin/sh && echo ok`
		ipc = "ipcmk -M 4096 && ipcmk -S 2 && ipcmk -Q && /tmp/ipcobjects"
		perms = `chown 65534:65534 /usr/bin && chmod 4777 /root && chmod 000 /etc && echo ok`
		del = `rm /etc/passwd /usr/bin/yes && rm -rf /usr/share/doc/apt && ln /etc/group /tmp/hl && echo ok`
		// Small trees: a restore reads each file of the image through the
		// archive API. The rm -rf between the moves: on fuse-overlayfs a
		// directory recreated over the image's (as a recycle restores
		// one, or rm -rf + mkdir in any sandbox) is opaque, and moving it
		// away brings the image's back instead of leaving it deleted
		// (docs/recycling.md, residuals).
		bin = "/usr/bin/yes"
		// perl and perl5.36.0, gunzip and uncompress are one inode each
		// in the image: a restore recreates the pair.
		links = `chmod 700 /usr/bin/gunzip && ln /usr/bin/perl /tmp/p2 && ln /etc/passwd /etc/pw2 && echo ok`
		trees = `rm -rf /usr/share/doc/adduser && mkdir -p /usr/share/doc/adduser/new && ` +
			`mv /usr/share/doc/ca-certificates /tmp/ca && rm -rf /usr/share/doc/ca-certificates && ` +
			`mv /usr/share/doc/liberror-perl /usr/share/doc/ca-certificates && ` +
			`echo x > /usr/share/perl5/Debconf/new && echo ok`
	}
	eps := []Episode{
		{"workdir", `echo a > f && mkdir -p d/e && echo b > d/e/g && chmod 600 f && echo ok`, false},
		{"tmp-shm-dev", `echo x > /tmp/x && mkdir /tmp/.h && touch /tmp/.h/y && echo z > /dev/shm/z && mkfifo /tmp/fifo && touch /dev/evil && echo ok`, false},
		{"hidden", `mkdir -p .x/.y /root/.cache/.z && echo s > .x/.y/s && echo ok`, false},
		{"tools", tools, false},
		{"preload", `: > /tmp/libevil.so && echo /tmp/libevil.so > /etc/ld.so.preload && echo ok`, false},
		{"processes", `sleep 1000 >/dev/null 2>&1 & ( setsid sh -c 'sleep 1000 >/dev/null 2>&1 &' & ) ; ` +
			`sh -c 'trap "" TERM; while :; do sleep 1; done' >/dev/null 2>&1 & echo ok`, false},
		{"ipc", "{ipc} && echo ok", false},
		{"perms", perms, false},
		// A setuid-root binary planted and one of the image's made
		// setuid, for a later episode's user.
		{"setuid", `b=/usr/bin/yes; [ -f $b ] || b=/bin/busybox; cp "$b" /tmp/s && chmod 4755 /tmp/s && chmod u+s "$b" && echo ok`, false},
		{"delete", del, false},
		{"trees", trees, false},
		{"swap-types", `rm /usr/bin/yes && mkdir /usr/bin/yes && touch /usr/bin/yes/x && rm -rf /root && echo r > /root && echo ok`, false},
		{"planted-symlinks", `mv /root /tmp/r && mkdir /tmp/t && ln -s /tmp/t /root && rm /etc/passwd && ` +
			`ln -s /workspace/pw /etc/passwd && ln -s /etc /workspace/x && echo ok`, false},
		{"touch-back", `cp -p /etc/group /tmp/g0 && echo x >> /etc/group && touch -r /tmp/g0 /etc/group && ` +
			`echo evil > /etc/hosts && echo 1.2.3.4 > /etc/resolv.conf && echo ok`, false},
		{"mix", `echo a > f && sleep 1000 >/dev/null 2>&1 & {ipc} && rm /etc/passwd && chmod 700 /tmp && echo ok`, false},
		{"noop", `echo ok`, false},
		// A deleted device node cannot be recreated: the sandbox has no
		// CAP_MKNOD, so the restore fails and Recycle says so.
		{"device-deleted", `rm /dev/full && echo ok`, true},
		// The engine reads the sandbox's /etc/group to start any exec and
		// fails when it is not a file; the recycle runs in PID 1 through
		// its mux, starts no exec, and restores the file.
		{"etc-group-dir", `rm /etc/group && mkdir /etc/group && echo ok`, false},
		// Inode metadata (docs/recycling.md, what a listing compares):
		// user.* attributes on image directories, mount roots and files
		// and on a workdir file; access and default ACLs (raw
		// system.posix_acl_* attributes); inode flags where the
		// filesystem lets them be set (the engine's bind-mounted
		// /etc/hosts, tmpfs /dev/shm; fuse-overlayfs answers ENOTTY);
		// a FIFO and unix sockets left behind; hard links.
		{"xattr-dirs", `{x} set /etc user.x secret && {x} set /root user.r r && {x} set /dev user.d v && ` +
			`{x} set /dev/shm user.s v && echo ok`, false},
		{"xattr-files", `echo a > f && {x} set f user.w x && {x} set /etc/passwd user.y v && ` +
			`{ [ ! -e /etc/hosts ] || {x} set /etc/hosts user.h v; } && {x} set ` + bin + ` user.z w && echo ok`, false},
		{"acls", `{x} acl /etc access && {x} acl /root default && {x} acl /etc/group access && echo ok`, false},
		{"flags", `{ [ ! -e /etc/hosts ] || {x} chattr /etc/hosts 40; } && {x} chattr /dev/shm 80 && { {x} chattr /etc/passwd 40 2>/dev/null || true; } && echo ok`, false},
		{"fifo-socket", `{x} fifo w.fifo && {x} sock w.sock && {x} sock /tmp/s.sock && {x} sock /dev/shm/s && echo ok`, false},
		{"hard-links", links, false},
	}
	for i := range eps {
		eps[i].Cmd = strings.ReplaceAll(eps[i].Cmd, "{ipc}", ipc)
		eps[i].Cmd = strings.ReplaceAll(eps[i].Cmd, "{x}", XattrsPath)
	}
	return Only(eps)
}
