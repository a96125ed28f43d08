// Command xattrs sets and lists the inode metadata busybox has no tool
// for — extended attributes in every namespace, POSIX ACLs (their raw
// system.posix_acl_* bytes), a file capability (security.capability, v2),
// inode flags — and leaves a FIFO or a unix socket behind: the hostile
// recycle test's stand-in for setfattr, getfattr, setfacl, setcap, chattr
// and lsattr (built static by the test, like ipcobjects).
//
//	xattrs set PATH NAME VALUE    lsetxattr (VALUE as text)
//	xattrs rm PATH NAME           lremovexattr
//	xattrs acl PATH access|default  a raw ACL: u::rwx,u:1000:r-x,g::r-x,m::r-x,o::---
//	xattrs cap PATH               security.capability v2: cap_net_raw+ep
//	xattrs chattr PATH FLAGS      FS_IOC_SETFLAGS (FLAGS in hex, or'ed in)
//	xattrs fifo PATH | sock PATH  a FIFO, a bound unix socket left behind
//	xattrs get PATH...            per path: its xattrs (name=hex, sorted), flags and link count
package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "xattrs:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: xattrs set|rm|acl|cap|chattr|fifo|sock|get PATH ...")
	}
	p := args[1]
	switch {
	case args[0] == "set" && len(args) == 4:
		return unix.Lsetxattr(p, args[2], []byte(args[3]), 0)
	case args[0] == "rm" && len(args) == 3:
		return unix.Lremovexattr(p, args[2])
	case args[0] == "acl" && len(args) == 3:
		return unix.Lsetxattr(p, "system.posix_acl_"+args[2], acl(), 0)
	case args[0] == "cap":
		return unix.Lsetxattr(p, "security.capability", capV2(unix.CAP_NET_RAW), 0)
	case args[0] == "chattr" && len(args) == 3:
		return chattr(p, args[2])
	case args[0] == "fifo":
		return unix.Mkfifo(p, 0o644)
	case args[0] == "sock":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrUnix{Name: p})
	case args[0] == "get":
		for _, p := range args[1:] {
			fmt.Println(get(p))
		}
		return nil
	}
	return fmt.Errorf("bad arguments %q", args)
}

// acl is a POSIX ACL as the kernel stores it in system.posix_acl_*: a
// version, then (tag, perm, id) per entry, sorted by tag then id.
func acl() []byte {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{0x01, 7, ^uint32(0)}, {0x02, 5, 1000}, {0x04, 5, ^uint32(0)}, {0x10, 5, ^uint32(0)}, {0x20, 0, ^uint32(0)}} {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// capV2 is a VFS_CAP_REVISION_2 capability set with capability c
// permitted and effective.
func capV2(c int) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x02000000|1) // revision 2, effective
	b = binary.LittleEndian.AppendUint32(b, 1<<c)            // permitted, low word
	b = binary.LittleEndian.AppendUint32(b, 0)               // inheritable
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint32(b, 0)
}

func chattr(p, flags string) error {
	add, err := strconv.ParseUint(flags, 16, 32)
	if err != nil {
		return err
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	cur, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return fmt.Errorf("get flags: %w", err)
	}
	return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(cur|uint32(add)))
}

// get describes p's xattrs, flags and (a regular file's) link count as
// a fresh sandbox shows them, one line.
func get(p string) string {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return p + " " + err.Error()
	}
	out := []string{p}
	// A regular file's link count (hard links); a directory's says
	// nothing a task set, and kernel overlayfs reads 1 for a merged one
	// (docs/recycling.md).
	if st.Mode&unix.S_IFMT == unix.S_IFREG {
		out = append(out, "nlink="+strconv.FormatUint(uint64(st.Nlink), 10))
	}
	buf := make([]byte, 1<<16)
	n, err := unix.Llistxattr(p, buf)
	if err != nil {
		out = append(out, "list:"+err.Error())
		n = 0
	}
	var names []string
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		v := make([]byte, 1<<16)
		m, err := unix.Lgetxattr(p, name, v)
		if err != nil {
			out = append(out, name+":"+err.Error())
			continue
		}
		out = append(out, name+"="+hex.EncodeToString(v[:m]))
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		out = append(out, "flags="+flagsOf(p))
	}
	return strings.Join(out, " ")
}

func flagsOf(p string) string {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err.Error()
	}
	defer unix.Close(fd)
	f, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return err.Error()
	}
	return strconv.FormatUint(uint64(f), 16)
}
