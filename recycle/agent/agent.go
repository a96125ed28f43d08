// Package agent is rbx's trusted in-sandbox agent, built static
// (CGO_ENABLED=0) into cmd/rbx-agent and mounted read-only into recyclable
// sandboxes: it runs as their PID 1 (init), and on request kills every
// other process, removes IPC objects and lists every writable mount
// (scan), or does a whole recycle (recycle: the changes since the last
// proven listing, then a restore plan applied without following planted
// symlinks), or prints a content digest for tests (digest). It uses nothing
// of the sandbox's own filesystem: no shell, no loader, no tool.
package agent

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Main runs the agent with args (without the program name) and returns its
// exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: rbx-agent init [-- CMD...] | scan | recycle [-session] | whois | digest | cat | install DEST")
		return 2
	}
	// Same-uid processes of the sandbox cannot ptrace us or read our memory.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	var err error
	switch args[0] {
	case "init":
		return Init(args[1:], stdin, stdout, stderr)
	case "scan":
		err = scan(args[1:], stdin, stdout)
	case "recycle":
		err = recycleCmd(args[1:], stdin, stdout)
	case "digest":
		err = Digest(stdout, selfMount())
	case "cat":
		err = serveCat(stdin, stdout)
	case "install":
		err = install(args[1:])
	case "whois":
		var sp SessionSpec
		if sp, err = Whois(); err == nil {
			err = json.NewEncoder(stdout).Encode(sp)
		}
	default:
		err = fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "rbx-agent %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// selfMount is the directory holding the agent's binary: its own mount.
func selfMount() string {
	exe, err := os.Executable()
	if err != nil {
		return "/.rbx"
	}
	return filepath.Dir(exe)
}

// scan kills every other process, removes IPC objects, and writes the
// gzipped full listing (a fresh sandbox's, taken once at its creation);
// with -fp it reads a key from stdin and writes the listing as
// fingerprints (FreshFPs), then the rest of the report as a frame; with
// -scoped it says Quiet, reads a Scope (the upper layer's directories at
// creation) and writes a frame of what a scoped walk lists: the host holds
// the image's listing already, and the rest of the root filesystem is the
// image's, untouched (see Scope).
func scan(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Second, "how long processes may take to die")
	keep := fs.Bool("keep", false, "report the content of small mount-root files (/etc/hosts...)")
	fp := fs.Bool("fp", false, "read a key on stdin, send fingerprints instead of the listing")
	scoped := fs.Bool("scoped", false, "once quiet, say so (Quiet), read a Scope on stdin, list only what a scoped walk lists, as a frame")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fp && *scoped {
		return errors.New("-fp and -scoped exclude each other")
	}
	var rep Report
	var err error
	if rep.State, err = quiesce(*timeout); err != nil {
		return err
	}
	var scope *Scope
	if *scoped {
		if _, err := io.WriteString(stdout, Quiet); err != nil {
			return err
		}
		if scope, err = ReadScope(stdin); err != nil {
			return err
		}
	}
	if rep.Entries, err = ListScoped(selfMount(), scope); err != nil {
		return err
	}
	if *keep {
		if rep.Kept, err = keepMountFiles(rep.Entries); err != nil {
			return err
		}
	}
	left, err := leftState()
	if err != nil {
		return err
	}
	rep.State.Others, rep.State.IPC = left.Others, left.IPC
	if *scoped {
		return WriteFrame(stdout, rep)
	}
	if *fp {
		var k Key
		if _, err := io.ReadFull(stdin, k[:]); err != nil {
			return fmt.Errorf("key: %w", err)
		}
		if err := WriteFreshFPs(stdout, NewFreshFPs(k, rep.Entries)); err != nil {
			return err
		}
		rep.Entries = nil
		return WriteFrame(stdout, rep)
	}
	zw := gzip.NewWriter(stdout)
	if err := WriteReport(zw, rep); err != nil {
		return err
	}
	return zw.Close()
}

// keepMountFiles reads the regular files that are mount roots (the
// engine's bind-mounted /etc/hosts, /etc/hostname, /etc/resolv.conf).
func keepMountFiles(ents []Entry) ([]Kept, error) {
	var out []Kept
	for _, e := range ents {
		if !e.MountRoot || e.Type != TypeFile {
			continue
		}
		if e.Size > MaxKept {
			return nil, fmt.Errorf("keep %q: %d bytes, more than %d", e.Path, e.Size, MaxKept)
		}
		data, err := readFile(string(e.Path))
		if err != nil {
			return nil, err
		}
		out = append(out, Kept{Path: e.Path, Data: data})
	}
	return out, nil
}
