package sandboxtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testNoNetwork: a sandbox created with the default network has no
// interface but loopback, and cannot reach a server listening on one of
// the host's own addresses (which the host itself reaches).
func (s *suite) testNoNetwork(t *testing.T) {
	s.need(t, s.feats.NetworkIsolation, "NetworkIsolation")
	sb := s.create(t, s.specFor(sandbox.ModeExec))
	res := runOK(t, sb, "ls /sys/class/net")
	assert.Equal(t, "lo\n", string(res.Output), "interfaces")
	res = run(t, sb, cmd(fetch(t, sb, hostServer(t))))
	assert.NotContains(t, string(res.Output), "reached", "the sandbox reached the host")
}

// testBridgeNetwork: Network "bridge" gives the sandbox an interface
// besides loopback and a route to a server on one of the host's addresses.
func (s *suite) testBridgeNetwork(t *testing.T) {
	s.need(t, s.feats.PrivateNetwork, "PrivateNetwork")
	addr := hostServer(t)
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			spec := s.specFor(mode)
			spec.Network = sandbox.NetworkBridge
			sb := s.create(t, spec)
			res := runOK(t, sb, "ls /sys/class/net | grep -vx lo | wc -l | tr -d ' '")
			assert.Equal(t, "1\n", string(res.Output), "one interface besides lo")
			res = run(t, sb, cmd(fetch(t, sb, addr)))
			assert.Contains(t, string(res.Output), "reached", "the sandbox reaches the host")
		})
	}
}

// hostServer starts an HTTP server answering "reached" on a non-loopback
// address of the host, checks that the host reaches it, and returns its
// address; without such an address the test is skipped.
func hostServer(t *testing.T) net.Addr {
	t.Helper()
	ip := hostAddr(t)
	if ip == "" {
		t.Skip("the host has no non-loopback IPv4 address to listen on")
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("reached")) }))
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	direct := &http.Client{Transport: &http.Transport{Proxy: nil}} // never the host's proxy
	resp, err := direct.Get(srv.URL)
	require.NoError(t, err, "the host reaches its own server")
	_ = resp.Body.Close()
	return l.Addr()
}

// fetch returns a command that sends an HTTP request to addr and prints
// the answer, with nc: busybox's static wget crashes resolving even a
// numeric address. An image without nc skips the test.
func fetch(t *testing.T, sb sandbox.Sandbox, addr net.Addr) string {
	t.Helper()
	if res := run(t, sb, cmd("command -v nc")); res.ExitCode != 0 {
		t.Skip("the image has no nc to open a connection with")
	}
	host, port, err := net.SplitHostPort(addr.String())
	require.NoError(t, err)
	return `printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 5 ` + host + " " + port + " 2>&1"
}

// hostAddr returns a non-loopback IPv4 address of the host, or "".
func hostAddr(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
