package containerd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/typeurl/v2"
)

// rootPath is the host path of the container's root as rbx writes into it
// (WriteFiles, the workdir's owner, a read-only root's seed). On runc it
// is /proc/<pid>/root, mounts included. On gVisor the task's pid is the
// Sentry's, whose root is an empty directory of runsc's own; the
// container's files are the bundle's rootfs, which the gofer serves and,
// with --file-access=shared, re-reads: the shim's working directory is the
// bundle. Both links are the kernel's (never process memory the sandboxed
// Sentry could rewrite); the caller checks the task still runs after
// opening, so a reused pid cannot have led elsewhere.
func (s *Sandbox) rootPath() (string, error) {
	pid := int(s.task.Pid())
	if !s.runsc {
		return "/proc/" + strconv.Itoa(pid) + "/root", nil
	}
	shim, err := parentPID(pid)
	if err != nil {
		return "", fmt.Errorf("gVisor sandbox's shim: %w", err)
	}
	return "/proc/" + strconv.Itoa(shim) + "/cwd/rootfs", nil
}

// parentPID reads pid's parent from /proc/<pid>/stat, after the command
// name (which may hold spaces and parentheses).
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, ...
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: no parent", pid)
	}
	return strconv.Atoi(string(f[1]))
}

// onRunsc reports whether container c was created on gVisor: its runc
// shim options name RunscWrapper.
func onRunsc(ctx context.Context, c client.Container) (bool, error) {
	info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
	if err != nil {
		return false, engineErr(err)
	}
	if info.Runtime.Options == nil || info.Runtime.Options.GetTypeUrl() == "" {
		return false, nil // runc's: no options (an empty record)
	}
	v, err := typeurl.UnmarshalAny(info.Runtime.Options)
	if err != nil {
		return false, fmt.Errorf("runtime options: %w", err)
	}
	o, ok := v.(*options.Options)
	return ok && o.BinaryName == RunscWrapper, nil
}

// runscTmpKeep is the file that keeps gVisor's hands off a writable
// root's /tmp (see keepTmp).
const runscTmpKeep = ".rbx-gvisor"

// keepTmp puts an empty file in the /tmp of a created, not yet started,
// gVisor sandbox with a writable root. gVisor mounts an in-memory tmpfs
// of its own over an empty /tmp that is not a mount: nothing rbx writes
// there from the host (WriteFiles) would be seen inside, nor anything a
// step leaves there read back. It leaves a /tmp that holds a file alone.
func (s *Sandbox) keepTmp() error {
	root, err := s.rootPath()
	if err != nil {
		return fmt.Errorf("keep /tmp from gVisor: %w", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("keep /tmp from gVisor: %w", err)
	}
	defer r.Close()
	switch err := r.Mkdir("tmp", 0o777); {
	case errors.Is(err, fs.ErrExist):
	case err != nil:
		return fmt.Errorf("keep /tmp from gVisor: %w", err)
	default: // os.Root takes no sticky bit at Mkdir
		if err := r.Chmod("tmp", 0o777|fs.ModeSticky); err != nil {
			return fmt.Errorf("keep /tmp from gVisor: %w", err)
		}
	}
	f, err := r.OpenFile("tmp/"+runscTmpKeep, os.O_CREATE|os.O_WRONLY, 0o444)
	if err != nil {
		return fmt.Errorf("keep /tmp from gVisor: %w", err)
	}
	return f.Close()
}
