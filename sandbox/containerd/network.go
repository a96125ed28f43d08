package containerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/containerd/containerd/v2/pkg/netns"
	"github.com/containerd/containerd/v2/pkg/oci"
	gocni "github.com/containerd/go-cni"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrNoCNI is why a sandbox asking for a network other than "none" is
// refused (with sandbox.ErrInvalidSpec) when this backend cannot give it:
// a containerd container's network is set up by CNI plugins, and none were
// found, or the network is not "bridge". Refused rather than run without
// the network the task asked for.
var ErrNoCNI = errors.New("no CNI network for it")

// CNIBinDirs are where the CNI plugins are looked for, in order: the
// upstream location, then Debian's (package containernetworking-plugins).
var CNIBinDirs = []string{"/opt/cni/bin", "/usr/lib/cni"}

// cniPlugins are the plugins the bridge network needs;
// firewall lets the sandbox's traffic through the FORWARD chain, whose
// policy Docker Engine sets to DROP.
var cniPlugins = []string{"bridge", "host-local", "firewall", "loopback"}

// The bridge network rbx's sandboxes share: a Linux bridge of its own with
// NAT to the host's networks, like Docker's default bridge. Its subnet and
// the addresses host-local hands out are rbx's own, apart from Docker's.
const (
	bridgeName = "rbxctrd0"
	cniSubnet  = "10.213.0.0/16"
	cniDataDir = "/var/lib/rbx/cni"
	netnsDir   = "/var/run/netns"
	// annotationNetNS holds a sandbox's network namespace, for its removal
	// by any rbx process (a path is no legal label value).
	annotationNetNS = "rbx.netns"
	cniConfList     = `{"cniVersion": "1.0.0", "name": "rbx-bridge", "plugins": [{
  "type": "bridge", "bridge": "` + bridgeName + `", "isGateway": true, "ipMasq": true, "hairpinMode": true,
  "ipam": {"type": "host-local", "ranges": [[{"subnet": "` + cniSubnet + `"}]],
           "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "` + cniDataDir + `"}},
  {"type": "firewall"}]}`
)

// cniNet is the loaded bridge network, shared by the runtime's sandboxes.
type cniNet struct {
	once sync.Once
	dir  string // where the plugins are; "" when not found
	cni  gocni.CNI
	err  error
}

// findCNI returns the first of dirs holding every plugin the bridge needs.
func findCNI(dirs []string) (string, error) {
	var why []string
	for _, d := range dirs {
		missing := []string{}
		for _, p := range cniPlugins {
			if _, err := os.Stat(filepath.Join(d, p)); err != nil {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			return d, nil
		}
		why = append(why, d+" lacks "+strings.Join(missing, ", "))
	}
	return "", fmt.Errorf("%w: no CNI plugins (%s; apt-get install containernetworking-plugins)", ErrNoCNI, strings.Join(why, "; "))
}

// load finds and loads the plugins once.
func (n *cniNet) load() (gocni.CNI, error) {
	n.once.Do(func() {
		if n.dir, n.err = findCNI(CNIBinDirs); n.err != nil {
			return
		}
		var c gocni.CNI
		if c, n.err = gocni.New(gocni.WithPluginDir([]string{n.dir}), gocni.WithInterfacePrefix("eth"), gocni.WithMinNetworkCount(2)); n.err == nil {
			n.err = c.Load(gocni.WithConfListBytes([]byte(cniConfList)), gocni.WithLoNetwork)
		}
		if n.err != nil {
			n.err = fmt.Errorf("%w: load the CNI bridge network from %s: %w", ErrNoCNI, n.dir, n.err)
		}
		n.cni = c
	})
	return n.cni, n.err
}

// checkNetwork refuses a network this backend cannot give.
func (r *Runtime) checkNetwork(network string) error {
	switch network {
	case sandbox.NetworkNone:
		return nil
	case sandbox.NetworkBridge:
		if _, err := r.net.load(); err != nil {
			return fmt.Errorf("%w: network %q: %w", sandbox.ErrInvalidSpec, network, err)
		}
		return nil
	}
	return fmt.Errorf("%w: network %q: %w: the containerd backend has \"none\" and \"bridge\" only", sandbox.ErrInvalidSpec, network, ErrNoCNI)
}

// setupNetwork gives sandbox id a network namespace on the bridge and
// returns its path; teardownNetwork undoes it.
func (r *Runtime) setupNetwork(ctx context.Context, id string) (string, error) {
	c, err := r.net.load()
	if err != nil {
		return "", err
	}
	ns, err := netns.NewNetNS(netnsDir)
	if err != nil {
		return "", fmt.Errorf("create network namespace: %w", err)
	}
	if _, err := c.Setup(ctx, id, ns.GetPath()); err != nil {
		return "", errors.Join(fmt.Errorf("attach to the CNI bridge: %w", err), r.teardownNetwork(context.WithoutCancel(ctx), id, ns.GetPath()))
	}
	return ns.GetPath(), nil
}

// teardownNetwork detaches sandbox id from the bridge (its address goes
// back to the pool, its NAT rules away) and removes its namespace.
func (r *Runtime) teardownNetwork(ctx context.Context, id, path string) error {
	c, err := r.net.load()
	if err != nil {
		return err
	}
	if err := c.Remove(ctx, id, path); err != nil {
		return fmt.Errorf("detach from the CNI bridge: %w", err)
	}
	if err := netns.LoadNetNS(path).Remove(); err != nil {
		return fmt.Errorf("remove network namespace %s: %w", path, err)
	}
	return nil
}

// netnsOpts joins the network namespace at path and gives the sandbox the
// host's resolv.conf (read-only), as Docker gives a bridged container.
func netnsOpts(path string) []oci.SpecOpts {
	opts := []oci.SpecOpts{oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: path})}
	if _, err := os.Stat("/etc/resolv.conf"); err == nil {
		opts = append(opts, oci.WithMounts([]specs.Mount{{
			Destination: "/etc/resolv.conf", Type: "bind", Source: "/etc/resolv.conf", Options: []string{"rbind", "ro"},
		}}))
	}
	return opts
}
