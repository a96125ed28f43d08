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

	res = run(t, sb, cmd("wget -q -T 3 -O - "+srv.URL+" 2>&1; echo rc=$?"))
	assert.NotContains(t, string(res.Output), "reached", "the sandbox reached the host")
	assert.NotContains(t, string(res.Output), "rc=0")
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
