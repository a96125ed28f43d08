package docker_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/network"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// setuidImage is testImage plus /bin/suid, a setuid-root copy of busybox:
// what a task's image (or an earlier step, in a recycled sandbox) could
// leave for a later episode's unprivileged user.
const setuidImage = "rbx/busybox:test-docker-setuid"

// attempt is one thing a policy could try from inside its sandbox, run as
// root unless spec says otherwise, and how it must have been contained.
type attempt struct {
	name string
	cmd  string
	// spec adjusts the sandbox's spec (limits, user, image).
	spec func(*sandbox.Spec)
	// contained checks the step's result on runtime rt ("runc", "runsc").
	contained func(t *testing.T, rt string, res sandbox.ExecResult)
	// peek: /tmp/peek (testdata/peek) is written into the sandbox first.
	peek bool
	// mayEnd: the attempt may end the session or the sandbox, which must
	// then be reported (ErrSessionLost, a GoneError), never hang or pass
	// as a result.
	mayEnd bool
}

// TestIntegrationHostile runs each attempt in a fresh sandbox, on runc and
// (where the engine has it) on runsc, and checks it was contained, that
// the sandbox still answers after it (or that its end was reported), that
// a neighbour sandbox is unchanged and still works while the attacked one
// is still there (a fork bomb still running, a tmpfs still full), and that
// the host's marker file is unchanged.
func TestIntegrationHostile(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "rbx-host-marker")
	require.NoError(t, os.WriteFile(marker, []byte("host"), 0o600))
	peek := recycletest.BuildStatic(t, "github.com/rbx-sandbox/rbx/sandbox/docker/testdata/peek")
	runtimes := map[string]func(testing.TB, ...string) *docker.Runtime{"runc": dockertest.Runtime, "runsc": dockertest.RunscRuntime}
	for name, newRT := range runtimes {
		t.Run(name, func(t *testing.T) {
			rt := newRT(t)
			ensureImage(t, rt.Client())
			importImage(t, rt.Client(), setuidImage, map[string]tarFile{"bin/suid": {mode: 0o4755, data: peek}})
			neighbour := newSandbox(t, rt, sandbox.Spec{Image: testImage, Mode: sandbox.ModeSession})
			ctx := context.Background()
			require.NoError(t, neighbour.WriteFiles(ctx, []sandbox.File{{Path: "/tmp/n", Data: []byte("neighbour")}}))
			gw := bridgeGateway(t, rt)
			for _, a := range hostileAttempts(marker, gw) {
				t.Run(a.name, func(t *testing.T) {
					spec := sandbox.Spec{Image: testImage, Mode: sandbox.ModeSession}
					if a.spec != nil {
						a.spec(&spec)
					}
					sb := newSandbox(t, rt, spec)
					if a.peek {
						require.NoError(t, sb.WriteFiles(ctx, []sandbox.File{{Path: "/tmp/peek", Data: peek, Mode: 0o755}}))
					}
					ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
					defer cancel()
					res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: a.cmd + " 2>&1"})
					if a.mayEnd && ended(err) {
						t.Logf("ended, and reported: %v", err)
					} else {
						require.NoError(t, err)
						a.contained(t, name, res)
						// Bounded: under a fork bomb the shell cannot run
						// the protocol, and the step times out.
						res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo alive", Timeout: 20 * time.Second})
						switch {
						case a.mayEnd && (ended(err) || err == nil && res.TimedOut):
							t.Logf("the sandbox no longer answers, reported: %v (timed out: %v)", err, res.TimedOut)
						default:
							require.NoError(t, err, "the sandbox answers after the attempt")
							assert.Equal(t, "alive\n", string(res.Output))
						}
					}
					// The attacked sandbox still exists (removed at cleanup).
					nctx, ncancel := context.WithTimeout(context.Background(), time.Minute)
					defer ncancel()
					res, err = neighbour.Exec(nctx, sandbox.ExecRequest{Command: "ls / >/dev/null && cat /tmp/n && hostname >/dev/null"})
					require.NoError(t, err, "the neighbour answers")
					assert.Equal(t, 0, res.ExitCode, "the neighbour can fork: %q", res.Output)
					assert.Equal(t, "neighbour", string(res.Output), "the neighbour's file is unchanged")
				})
			}
			data, err := os.ReadFile(marker)
			require.NoError(t, err)
			assert.Equal(t, "host", string(data), "the host's file is unchanged")
		})
	}
}

// ended: err reports the session or the sandbox gone.
func ended(err error) bool {
	return errors.Is(err, sandbox.ErrSessionLost) || errors.Is(err, sandbox.ErrSandboxGone)
}

// bridgeGateway listens on the host's side of the engine's default bridge
// (its gateway address, where a container with a network reaches the host)
// and returns that address; any connection fails the test: the egress
// attempt runs with network none.
func bridgeGateway(t *testing.T, rt *docker.Runtime) string {
	t.Helper()
	nw, err := rt.Client().NetworkInspect(context.Background(), "bridge", network.InspectOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, nw.IPAM.Config, "the default bridge's addresses")
	gw := nw.IPAM.Config[0].Gateway
	if gw == "" { // the engine's rule: the subnet's first address
		p, err := netip.ParsePrefix(nw.IPAM.Config[0].Subnet)
		require.NoError(t, err)
		gw = p.Masked().Addr().Next().String()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(gw, "0"))
	t.Cleanup(func() {
		if ln != nil {
			_ = ln.Close()
		}
	})
	require.NoError(t, err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
			t.Errorf("a sandbox reached the host at %s", ln.Addr())
		}
	}()
	return ln.Addr().String()
}
