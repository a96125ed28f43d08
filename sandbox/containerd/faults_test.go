package containerd_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
)

// TestIntegrationSecurityDefaults: the capabilities and no-new-privileges
// of the docker backend, its limits in the OCI spec, labels, and no
// network interface but loopback.
func TestIntegrationSecurityDefaults(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec, Limits: sandbox.Limits{Pids: 64, MemoryBytes: 256 << 20, CPUs: 0.5}})
	ctx := namespaces.WithNamespace(context.Background(), containerd.DefaultNamespace)
	c, err := rt.Client().LoadContainer(ctx, sb.ID())
	require.NoError(t, err)
	spec, err := c.Spec(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"CAP_CHOWN", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID"},
		spec.Process.Capabilities.Bounding, "no DAC_OVERRIDE")
	rlimits := map[string][2]uint64{}
	for _, l := range spec.Process.Rlimits {
		rlimits[l.Type] = [2]uint64{l.Soft, l.Hard}
	}
	assert.Equal(t, [2]uint64{sandbox.DefaultFileSize, sandbox.DefaultFileSize}, rlimits["RLIMIT_FSIZE"])
	assert.Equal(t, [2]uint64{sandbox.DefaultNoFile, sandbox.DefaultNoFile}, rlimits["RLIMIT_NOFILE"])
	assert.True(t, spec.Process.NoNewPrivileges)
	res := spec.Linux.Resources
	assert.EqualValues(t, 64, *res.Pids.Limit)
	assert.EqualValues(t, 256<<20, *res.Memory.Limit)
	assert.EqualValues(t, 50_000, *res.CPU.Quota)
	assert.NotNil(t, spec.Linux.Seccomp, "the default seccomp profile")
	labels, err := c.Labels(ctx)
	require.NoError(t, err)
	assert.Equal(t, "true", labels[sandbox.LabelManaged])
	assert.Equal(t, sandbox.Owner, labels[sandbox.LabelOwner])

	out, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "ls /sys/class/net; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status"})
	require.NoError(t, err)
	assert.Equal(t, 0, out.ExitCode, string(out.Output))
	assert.True(t, strings.HasPrefix(string(out.Output), "lo\n"), "only loopback: %s", out.Output)
	assert.Contains(t, string(out.Output), "NoNewPrivs:\t1")
	assert.Contains(t, string(out.Output), "CapEff:\t00000000000000f9", "CHOWN FOWNER FSETID KILL SETGID SETUID")
}

func TestIntegrationSpecRefused(t *testing.T) {
	rt := newRuntime(t)
	_, err := rt.Create(context.Background(), sandbox.Spec{Image: "rbx/does-not-exist:never"})
	require.ErrorIs(t, err, sandbox.ErrImageMissing)
	assert.Contains(t, err.Error(), "rbx/does-not-exist:never")
	_, err = rt.Create(context.Background(), sandbox.Spec{Image: testImage, Network: "my-net"})
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec, "refused, never run without the network asked for")
	require.ErrorIs(t, err, containerd.ErrNoCNI)
	assert.Contains(t, err.Error(), `"none" and "bridge" only`)
}

// TestIntegrationBridgeWithoutCNI: without the CNI plugins, a bridged
// sandbox is refused, naming the directories searched and the package.
func TestIntegrationBridgeWithoutCNI(t *testing.T) {
	old := containerd.CNIBinDirs
	containerd.CNIBinDirs = []string{t.TempDir()}
	t.Cleanup(func() { containerd.CNIBinDirs = old })
	rt := newRuntime(t)
	assert.False(t, rt.Features().PrivateNetwork)
	_, err := rt.Create(context.Background(), sandbox.Spec{Image: testImage, Network: sandbox.NetworkBridge})
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
	require.ErrorIs(t, err, containerd.ErrNoCNI)
	assert.Contains(t, err.Error(), containerd.CNIBinDirs[0]+" lacks bridge, host-local, firewall, loopback")
	assert.Contains(t, err.Error(), "containernetworking-plugins")
}

// TestIntegrationBridgeRemovedElsewhere: a bridged sandbox removed by
// another runtime (as `rbx gc` would) loses its network namespace and its
// address with it.
func TestIntegrationBridgeRemovedElsewhere(t *testing.T) {
	rt := newRuntime(t)
	if !rt.Features().PrivateNetwork {
		t.Skip("no CNI plugins (apt-get install containernetworking-plugins)")
	}
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec, Network: sandbox.NetworkBridge})
	infos, err := rt.List(context.Background(), map[string]string{"rbx.test": sandbox.LabelValue(t.Name())})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	ns := infos[0].Annotations["rbx.netns"]
	require.FileExists(t, ns)
	other := newRuntime(t)
	require.NoError(t, other.Remove(context.Background(), sb.ID()))
	assert.NoFileExists(t, ns, "the network namespace went with the sandbox")
}

// TestIntegrationUlimits: a policy writing without bound stops at the file
// size limit, in both modes; nofile is what the spec says.
func TestIntegrationUlimits(t *testing.T) {
	rt := newRuntime(t)
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode, Limits: sandbox.Limits{FileSizeBytes: 4 << 20, NoFile: 300}})
			res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "dd if=/dev/zero of=/tmp/big bs=1M count=1000"})
			require.NoError(t, err)
			assert.Equal(t, 128+25, res.ExitCode, "SIGXFSZ: %s", res.Output)
			res, err = sb.Exec(context.Background(), sandbox.ExecRequest{Command: "wc -c < /tmp/big; ulimit -n"})
			require.NoError(t, err)
			assert.Equal(t, "4194304\n300\n", string(res.Output))
		})
	}
}

// TestIntegrationGoneCauses: a container whose task is killed, or which is
// removed, from outside in the middle of a step yields a GoneError naming
// the cause.
func TestIntegrationGoneCauses(t *testing.T) {
	rt := newRuntime(t)
	ctx := namespaces.WithNamespace(context.Background(), containerd.DefaultNamespace)
	faults := []struct {
		cause string
		do    func(id string) error
	}{
		{sandbox.CauseKilled, func(id string) error {
			c, err := rt.Client().LoadContainer(ctx, id)
			if err != nil {
				return err
			}
			task, err := c.Task(ctx, nil)
			if err != nil {
				return err
			}
			return task.Kill(ctx, syscall.SIGKILL)
		}},
		{sandbox.CauseRemoved, func(id string) error { return rt.Remove(ctx, id) }},
	}
	for _, f := range faults {
		for _, mode := range modes {
			t.Run(f.cause+"/"+string(mode), func(t *testing.T) {
				sb := newSandbox(t, rt, sandbox.Spec{Mode: mode})
				errc := make(chan error, 1)
				go func() {
					_, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "sleep 30"})
					errc <- err
				}()
				time.Sleep(500 * time.Millisecond)
				require.NoError(t, f.do(sb.ID()))
				var err error
				select {
				case err = <-errc:
				case <-time.After(15 * time.Second):
					t.Fatal("the running step did not return")
				}
				var ge *sandbox.GoneError
				require.ErrorAs(t, err, &ge)
				assert.Equal(t, f.cause, ge.Cause, err.Error())
				assert.Equal(t, sb.ID(), ge.ID)
			})
		}
	}
}

// TestIntegrationBridgeConcurrent: bridged sandboxes created at once get
// addresses of their own on rbx's subnet and reach each other; removing
// them leaves no network namespace behind.
func TestIntegrationBridgeConcurrent(t *testing.T) {
	rt := newRuntime(t)
	if !rt.Features().PrivateNetwork {
		t.Skip("no CNI plugins (apt-get install containernetworking-plugins)")
	}
	const n = 4
	sbs := make([]sandbox.Sandbox, n)
	var g errgroup.Group
	for i := range sbs {
		g.Go(func() error {
			var err error
			sbs[i], err = rt.Create(context.Background(), sandbox.Spec{Image: testImage, Mode: sandbox.ModeExec, Network: sandbox.NetworkBridge,
				Labels: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}})
			return err
		})
	}
	err := g.Wait()
	var paths []string
	t.Cleanup(func() { // after the removals below (cleanups run last first)
		for _, p := range paths {
			assert.NoFileExists(t, p, "network namespace left behind")
		}
	})
	for _, sb := range sbs {
		if sb != nil {
			infos, lerr := rt.List(context.Background(), map[string]string{"rbx.test": sandbox.LabelValue(t.Name())})
			require.NoError(t, lerr)
			for _, in := range infos {
				if in.ID == sb.ID() {
					paths = append(paths, in.Annotations["rbx.netns"])
				}
			}
			t.Cleanup(func() { assert.NoError(t, sb.Remove(context.Background())) })
		}
	}
	require.NoError(t, err)
	addrs := map[string]bool{}
	for _, sb := range sbs {
		res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1"})
		require.NoError(t, err)
		ip := strings.TrimSpace(string(res.Output))
		assert.True(t, strings.HasPrefix(ip, "10.213."), "on rbx's subnet: %q", ip)
		addrs[ip] = true
	}
	assert.Len(t, addrs, n, "one address each")
	// Each serves its own address over HTTP; the first fetches them all.
	for _, sb := range sbs {
		res, err := sb.Exec(context.Background(), sandbox.ExecRequest{
			Command: "mkdir -p /tmp/www && ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1 > /tmp/www/index.html && httpd -p 8000 -h /tmp/www"})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, string(res.Output))
	}
	for ip := range addrs {
		res, err := sbs[0].Exec(context.Background(), sandbox.ExecRequest{Command: `printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 5 ` + ip + " 8000"})
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(string(res.Output), ip+"\n"), "reaches %s: %q", ip, res.Output)
	}
}
