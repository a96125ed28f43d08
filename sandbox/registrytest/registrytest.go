// Package registrytest starts a real image registry (Debian's
// docker-registry, the registry:2 protocol) on loopback for pull tests,
// and stops it when the test ends.
package registrytest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Binary is the registry program (Debian package docker-registry).
const Binary = "docker-registry"

// Registry is a running registry.
type Registry struct {
	// Host is "127.0.0.1:<port>", the registry part of image references.
	Host string
	cmd  *exec.Cmd
}

// Start runs a registry on a free loopback port with its storage in a
// temporary directory, waits until it answers, and stops it at test end.
// It skips tb when the program is not installed, unless required.
func Start(tb testing.TB, required bool) *Registry {
	tb.Helper()
	bin, err := exec.LookPath(Binary)
	if err != nil {
		if required {
			tb.Fatalf("%s not installed (apt-get install docker-registry): %v", Binary, err)
		}
		tb.Skipf("%s not installed (apt-get install docker-registry)", Binary)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("free port: %v", err)
	}
	host := l.Addr().String()
	_ = l.Close()
	dir := tb.TempDir()
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: %s\n"+
		"  delete:\n    enabled: true\nhttp:\n  addr: %s\n  secret: rbx-test\n",
		filepath.Join(dir, "data"), host)
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", cfgPath)
	var logs syncBuffer // shown only when the test fails
	cmd.Stdout, cmd.Stderr = &logs, &logs
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("registry log:\n%s", logs.String())
		}
	})
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", Binary, err)
	}
	r := &Registry{Host: host, cmd: cmd}
	tb.Cleanup(r.Stop)
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			_ = resp.Body.Close()
			return r
		}
		if time.Now().After(deadline) {
			tb.Fatalf("registry on %s did not answer: %v", host, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the registry and waits for it; it is idempotent.
func (r *Registry) Stop() {
	if r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

// syncBuffer is a bytes.Buffer the registry's two streams may share.
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
