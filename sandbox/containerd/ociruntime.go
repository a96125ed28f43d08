package containerd

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/containerd/containerd/api/types/runc/options"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Runsc is gVisor's OCI runtime, the one name WithOCIRuntime takes.
const Runsc = sandbox.Runsc

// RunscWrapper is the executable the runc shim runs in runc's place under
// WithOCIRuntime(Runsc): /usr/bin/runsc with rbx's flags, which the shim's
// options cannot carry (they name a binary, not a command line). Debian's
// runsc package has no containerd-shim-runsc-v1, so gVisor is reached
// through the runc shim, whose runc command line runsc accepts.
// `scripts/host-setup.sh runsc` installs it.
const RunscWrapper = "/usr/local/lib/rbx/runsc"

// runscCheckTimeout bounds the wrapper's `--version` on the first Create.
const runscCheckTimeout = 10 * time.Second

// WithOCIRuntime runs every sandbox on the named OCI runtime: "runc" (the
// default) or Runsc, gVisor: a second kernel between the policy's commands
// and the host's (docs/isolation.md), through RunscWrapper, which the
// first Create checks. Sandboxes keep the runtime they were created with.
func WithOCIRuntime(name string) Option {
	return func(c *config) error {
		switch name {
		case "runc":
			c.ociRuntime = ""
		case Runsc:
			c.ociRuntime = Runsc
		default:
			return fmt.Errorf("%w: oci runtime %q: expected runc or %s", sandbox.ErrUnsupported, name, Runsc)
		}
		return nil
	}
}

// OCIRuntime returns the runtime sandboxes run on ("" for runc).
func (r *Runtime) OCIRuntime() string { return r.oci.name }

// ociRuntime is the runtime of WithOCIRuntime and whether this host has it.
type ociRuntime struct {
	name string
	once sync.Once
	err  error
}

// runtimeOptions are the runc shim's options for a sandbox's container:
// nil (runc) or the wrapper in runc's place.
func (r *Runtime) runtimeOptions() any {
	if r.oci.name != Runsc {
		return nil
	}
	return &options.Options{BinaryName: RunscWrapper}
}

// checkOCIRuntime fails, every time, when the wrapper does not run here:
// containerd would otherwise fail each task's start with the shim's
// "exec: no such file" deep in its message. It refuses a read-only root
// on gVisor: its tmpfs are gVisor's own, where what rbx writes from the
// host (the image's content, staged files) never shows, and runsc refuses
// their owner's mount options.
func (r *Runtime) checkOCIRuntime(ctx context.Context, spec sandbox.Spec) error {
	o := &r.oci
	if o.name != Runsc {
		return nil
	}
	if spec.ReadOnlyRoot {
		return fmt.Errorf("%w: read_only_root on %s (the containerd backend): its writable tmpfs would be gVisor's, out of rbx's reach", sandbox.ErrUnsupported, Runsc)
	}
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, runscCheckTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, RunscWrapper, "--version").CombinedOutput()
		if err != nil {
			o.err = fmt.Errorf("%w: OCI runtime %s: %s --version: %v %s(scripts/host-setup.sh runsc installs it, with apt-get install runsc)",
				sandbox.ErrUnsupported, Runsc, RunscWrapper, err, firstLine(out))
		}
	})
	return o.err
}

// firstLine is out's first line followed by a space, or "".
func firstLine(out []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" {
		return ""
	}
	return "(" + line + ") "
}
