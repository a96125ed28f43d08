package agent

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SessionSpec is how a session shell runs: what a fresh sandbox's shell,
// started by the engine's exec, was given (Whois reads it before any
// policy ran), so that a recycle can start the next one exactly alike in
// its own exec instead of a second one.
type SessionSpec struct {
	// Path is the program the shell runs (its /proc/PID/exe), Argv its
	// command line: the shell as it ended up after the engine's command
	// (a /bin/sh that exec'd bash), so that it is started directly with
	// exactly its environment.
	Path   string   `json:"path"`
	Argv   []string `json:"argv"`
	Env    [][]byte `json:"env"`
	Dir    []byte   `json:"dir"`
	UID    int      `json:"uid"`
	GID    int      `json:"gid"`
	Groups []int    `json:"groups"`
}

// maxSpec bounds a SessionSpec on the wire.
const maxSpec = 1 << 20

// WriteSessionSpec writes sp after its length (8 bytes).
func WriteSessionSpec(w io.Writer, sp SessionSpec) error {
	data, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(data)))
	if _, err := w.Write(append(n[:], data...)); err != nil {
		return err
	}
	return nil
}

// readSessionSpec reads exactly one spec from r, never a byte more (what
// follows on the stream is the session shell's).
func readSessionSpec(r io.Reader) (SessionSpec, error) {
	var sp SessionSpec
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return sp, fmt.Errorf("session spec: %w", err)
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > maxSpec {
		return sp, fmt.Errorf("session spec: %d bytes, more than %d", size, maxSpec)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return sp, fmt.Errorf("session spec: %w", err)
	}
	if err := json.Unmarshal(data, &sp); err != nil {
		return sp, fmt.Errorf("session spec: %w", err)
	}
	if len(sp.Argv) == 0 || !strings.HasPrefix(sp.Path, "/") {
		return sp, errors.New("session spec: an absolute path and an argv expected")
	}
	return sp, nil
}

// execSession becomes the session shell: the spec's groups, gid, uid (for
// every thread), directory, environment and argv. stdin must hold nothing
// buffered: the host's first bytes after the spec are the shell's.
func execSession(in *bufio.Reader) error {
	if in.Buffered() != 0 {
		return errors.New("session spec: input buffered past the plan")
	}
	sp, err := readSessionSpec(os.Stdin)
	if err != nil {
		return err
	}
	env := make([]string, len(sp.Env))
	for i, e := range sp.Env {
		if bytes.IndexByte(e, 0) >= 0 {
			return errors.New("session spec: NUL in the environment")
		}
		env[i] = string(e)
	}
	if err := syscall.Setgroups(sp.Groups); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(sp.GID, sp.GID, sp.GID); err != nil {
		return fmt.Errorf("setresgid: %w", err)
	}
	if err := syscall.Setresuid(sp.UID, sp.UID, sp.UID); err != nil {
		return fmt.Errorf("setresuid: %w", err)
	}
	if err := syscall.Chdir(string(sp.Dir)); err != nil {
		return fmt.Errorf("chdir %q: %w", sp.Dir, err)
	}
	return syscall.Exec(sp.Path, sp.Argv, env)
}

// Whois reads the spec of the one process (Path empty when it could not be
// started alike) of the sandbox besides PID 1
// and the caller: a fresh sandbox's session shell.
func Whois() (SessionSpec, error) {
	var sp SessionSpec
	procs, err := Procs()
	if err != nil {
		return sp, err
	}
	others := withoutInit(procs)
	if len(others) != 1 {
		return sp, fmt.Errorf("whois: %d processes besides PID 1, one (the session shell) expected", len(others))
	}
	dir := "/proc/" + strconv.Itoa(others[0].PID)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return sp, err
	}
	if err := parseStatus(status, &sp); err != nil {
		return sp, err
	}
	var environ []byte
	var cwd, exe string
	// environ and cwd need ptrace access to the shell: without
	// CAP_SYS_PTRACE, only as its own uid and gid (the filesystem ones,
	// on this thread alone, for these two reads).
	err = asFS(sp.UID, sp.GID, func() error {
		var err error
		if environ, err = os.ReadFile(dir + "/environ"); err != nil {
			return err
		}
		if cwd, err = os.Readlink(dir + "/cwd"); err != nil {
			return err
		}
		exe, err = os.Readlink(dir + "/exe")
		return err
	})
	if err != nil {
		return sp, err
	}
	for _, e := range bytes.Split(environ, []byte{0}) {
		if len(e) > 0 {
			sp.Env = append(sp.Env, e)
		}
	}
	sp.Dir, sp.Path = []byte(cwd), exe
	cmdline, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return sp, err
	}
	for _, a := range bytes.Split(bytes.TrimSuffix(cmdline, []byte{0}), []byte{0}) {
		sp.Argv = append(sp.Argv, string(a))
	}
	// The kernel names a process (comm) after the path it was exec'd by,
	// not the file it resolved to (/bin/sh, not busybox): exec by that path.
	if len(sp.Argv) > 0 && strings.HasPrefix(sp.Argv[0], "/") {
		sp.Path = sp.Argv[0]
	}
	comm := others[0].Comm
	if name := path.Base(sp.Path); name != comm && (len(comm) < 15 || !strings.HasPrefix(name, comm)) {
		sp.Path = "" // cannot be started alike: the host reopens with an exec
	}
	return sp, nil
}

// asFS runs fn on one OS thread whose filesystem uid and gid are uid and
// gid, then gives them back.
func asFS(uid, gid int, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	oldGID, _ := unix.SetfsgidRetGid(gid)
	oldUID, _ := unix.SetfsuidRetUid(uid)
	err := fn()
	_, _ = unix.SetfsuidRetUid(oldUID)
	_, _ = unix.SetfsgidRetGid(oldGID)
	return err
}

// parseStatus reads the real uid, gid and groups from /proc/PID/status.
func parseStatus(status []byte, sp *SessionSpec) error {
	found := 0
	for _, line := range strings.Split(string(status), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		switch key {
		case "Uid", "Gid":
			if len(f) == 0 {
				return fmt.Errorf("whois: empty %s line", key)
			}
			v, err := strconv.Atoi(f[0])
			if err != nil {
				return fmt.Errorf("whois: %s: %w", key, err)
			}
			if key == "Uid" {
				sp.UID = v
			} else {
				sp.GID = v
			}
			found++
		case "Groups":
			sp.Groups = []int{}
			for _, g := range f {
				v, err := strconv.Atoi(g)
				if err != nil {
					return fmt.Errorf("whois: Groups: %w", err)
				}
				sp.Groups = append(sp.Groups, v)
			}
			found++
		}
	}
	if found != 3 {
		return errors.New("whois: no Uid, Gid or Groups line")
	}
	return nil
}
