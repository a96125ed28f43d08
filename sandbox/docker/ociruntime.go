package docker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/mount"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WithOCIRuntime runs every sandbox on the engine's OCI runtime name
// (HostConfig.Runtime), for example "runsc" for gVisor: a second kernel
// between the policy's commands and the host's (docs/isolation.md). The
// runtime must be registered with the engine (daemon.json "runtimes";
// scripts/host-setup.sh registers runsc); the first Create checks it.
// Default: the engine's default runtime (runc).
func WithOCIRuntime(name string) Option {
	return func(c *config) error {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("oci runtime: empty")
		}
		c.ociRuntime = name
		return nil
	}
}

// OCIRuntime returns the runtime sandboxes run on ("" for the engine's
// default).
func (r *Runtime) OCIRuntime() string { return r.oci.name }

// ociRuntime is the runtime of WithOCIRuntime and whether the engine has it.
type ociRuntime struct {
	name string
	once sync.Once
	err  error
}

// check fails, every time, when the engine does not know the runtime.
func (r *Runtime) checkOCIRuntime(ctx context.Context) error {
	o := &r.oci
	if o.name == "" {
		return nil
	}
	o.once.Do(func() {
		info, err := r.cli.Info(ctx)
		if err != nil {
			o.err = fmt.Errorf("OCI runtime %q: %w", o.name, engineErr(err))
			return
		}
		var known []string
		for n := range info.Runtimes {
			known = append(known, n)
		}
		slices.Sort(known)
		if !slices.Contains(known, o.name) {
			o.err = fmt.Errorf("%w: OCI runtime %q is not registered with the engine (it has %s; register it in daemon.json's \"runtimes\": scripts/host-setup.sh does for runsc)",
				sandbox.ErrUnsupported, o.name, strings.Join(known, ", "))
		}
	})
	return o.err
}

// runscTmp is the /tmp of a writable-root sandbox on runsc: an anonymous
// volume (the image's /tmp copied in, removed with the container). gVisor
// mounts its own in-memory tmpfs over an empty /tmp that is not a mount,
// where nothing rbx writes through the engine's archive API (a task's
// files, file actions) is seen, and nothing a step writes there is read
// back (TestIntegrationHostile found it; docs/isolation.md).
func runscTmp(labels map[string]string) mount.Mount {
	return mount.Mount{Type: mount.TypeVolume, Target: "/tmp", VolumeOptions: &mount.VolumeOptions{Labels: labels}}
}
