package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// to dir and returns their paths.
func selfSigned(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rbx serve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certPath, keyPath
}

// serveInProcess runs `rbx serve args...` in this process until the test
// ends and returns the URL it listens on.
func serveInProcess(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	errOut := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"serve"}, args...), Streams{In: strings.NewReader(""), Out: pw, ErrOut: errOut})
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		assert.Equal(t, exitOK, <-done, "serve drains and exits 0: %s", errOut)
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err, "serve did not start: %s", errOut)
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeTLS: with --tls-cert/--tls-key serve speaks HTTPS; the Go client
// trusting the certificate (WithCAFile) and sending the token plays an
// episode; plain HTTP, an untrusted certificate and a missing token get
// nowhere.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	tok := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tok, []byte("s3cret\n"), 0o600))
	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS("../../examples/run-sh-path")))
	url := serveInProcess(t, "--tasks", tasks, "--runtime", "local", "--addr", "127.0.0.1:0", "--pool", "1",
		"--state", filepath.Join(dir, "state.db"), "--token-file", tok, "--tls-cert", cert, "--tls-key", key)
	require.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), url)

	ctx := context.Background()
	c, err := client.New(url, client.WithToken("s3cret"), client.WithCAFile(cert))
	require.NoError(t, err)
	rr, err := c.Reset(ctx, server.ResetRequest{Task: "run-sh-path", Checkpoint: []byte("11")})
	require.NoError(t, err)
	require.Len(t, rr.Episodes, 1)
	sr, err := c.Step(ctx, rr.Episodes[0].ID, server.StepRequest{ToolCall: &server.ToolCall{Name: "shell", Arguments: []byte(`{"command": "./run.sh"}`)}})
	require.NoError(t, err)
	assert.Equal(t, "total=14024\n", sr.Observation.Output)
	ev, err := c.Evaluate(ctx, rr.Episodes[0].ID)
	require.NoError(t, err)
	assert.True(t, ev.Success)

	noToken, err := client.New(url, client.WithCAFile(cert))
	require.NoError(t, err)
	_, err = noToken.Reset(ctx, server.ResetRequest{Task: "run-sh-path"})
	var ae *server.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusUnauthorized, ae.Status)

	untrusted, err := client.New(url, client.WithToken("s3cret"))
	require.NoError(t, err)
	_, err = untrusted.Reset(ctx, server.ResetRequest{Task: "run-sh-path"})
	var unknown x509.UnknownAuthorityError
	assert.True(t, errors.As(err, &unknown), "the system store does not trust a self-signed certificate: %v", err)

	resp, err := http.Get("http" + strings.TrimPrefix(url, "https") + "/healthz")
	if err == nil {
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain HTTP on the HTTPS port")
	}
}
