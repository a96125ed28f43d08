package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// buildServeBinary compiles cmd/rbx and cmd/rbx-agent into a temporary
// directory, so the benchmark's server is the real binary (its own
// start-up and RSS) and recycles as an installed one does.
// RBX_BENCH_BIN names a binary to use instead (an earlier build, to
// compare servers with the same driver).
func buildServeBinary(b *testing.B) (bin, from string) {
	b.Helper()
	if bin := os.Getenv("RBX_BENCH_BIN"); bin != "" {
		_, err := os.Stat(bin)
		require.NoError(b, err, "RBX_BENCH_BIN")
		return bin, "RBX_BENCH_BIN=" + bin
	}
	_, file, _, ok := runtime.Caller(0)
	require.True(b, ok)
	bin = filepath.Join(b.TempDir(), "rbx")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/rbx")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	out, err := cmd.CombinedOutput()
	require.NoError(b, err, "go build ./cmd/rbx: %s", out)
	// rbx-agent beside rbx, as make build puts it: what --recycle auto finds.
	agent := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(bin), "rbx-agent"), "./cmd/rbx-agent")
	agent.Dir, agent.Env = cmd.Dir, append(os.Environ(), "CGO_ENABLED=0")
	out, err = agent.CombinedOutput()
	require.NoError(b, err, "go build ./cmd/rbx-agent: %s", out)
	rev := exec.Command("git", "describe", "--always", "--dirty")
	rev.Dir = cmd.Dir
	head, _ := rev.Output() // outside a git checkout: no revision
	return bin, "go build at " + orDash(strings.TrimSpace(string(head)))
}

// serveProc is one `rbx serve` subprocess and what its start-up took.
type serveProc struct {
	cmd       *exec.Cmd
	url       string
	stderr    string        // path of its stderr log
	listening time.Duration // process start → address on stdout
	healthy   time.Duration // process start → first /healthz 200
	exited    chan error
}

// startServe starts bin serve on tasks with extra flags and waits for
// /healthz. The process is killed at cleanup if still running (the
// caller registers the container clean-up by its pid).
func startServe(ctx context.Context, b *testing.B, bin, tasks string, flags []string) (*serveProc, error) {
	dir := b.TempDir()
	args := append([]string{"serve", "--tasks", tasks, "--runtime", "docker", "--state", filepath.Join(dir, "state.db"),
		"--addr", "127.0.0.1:0"}, flags...)
	p := &serveProc{cmd: exec.Command(bin, args...), stderr: filepath.Join(dir, "stderr.log"), exited: make(chan error, 1)}
	// A benchmark killed half-way must not leave its server serving (and
	// holding sandboxes) behind it: the server gets SIGTERM, and drains.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	errf, err := os.Create(p.stderr)
	if err != nil {
		return nil, fmt.Errorf("serve stderr: %w", err)
	}
	p.cmd.Stderr = errf
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("serve stdout: %w", err)
	}
	start := time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start rbx serve: %w", err)
	}
	b.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited; _ = errf.Close() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- u
			}
		}
		p.exited <- p.cmd.Wait()
	}()
	select {
	case p.url = <-addr:
		p.listening = time.Since(start)
	case err := <-p.exited:
		p.exited <- err
		return p, fmt.Errorf("rbx serve exited before listening: %v: %s", err, p.tail())
	case <-time.After(5 * time.Minute):
		return p, fmt.Errorf("rbx serve: no address on stdout after 5m: %s", p.tail())
	}
	if err := p.waitHealthy(ctx); err != nil {
		return p, err
	}
	p.healthy = time.Since(start)
	return p, nil
}

// waitHealthy polls /healthz every 10 ms until it answers 200.
func (p *serveProc) waitHealthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		if _, err := p.health(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("rbx serve: /healthz: %w: %s", ctx.Err(), p.tail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// healthDoc is the part of /healthz the benchmark reads; Capacity is
// absent on a server without a sandbox budget.
type healthDoc struct {
	Status   string `json:"status"`
	Capacity *struct {
		Max  int `json:"max"`
		Live int `json:"live"`
		Peak int `json:"peak"`
	} `json:"capacity"`
}

func (p *serveProc) health(ctx context.Context) (*healthDoc, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/healthz", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /healthz: %w", err)
	}
	defer resp.Body.Close()
	var doc healthDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /healthz: %d: %v", resp.StatusCode, err)
	}
	return &doc, nil
}

// stop sends SIGTERM and waits for the drain; a non-zero exit is an error.
func (p *serveProc) stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("SIGTERM rbx serve: %w", err)
	}
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			return fmt.Errorf("rbx serve after SIGTERM: %w: %s", err, p.tail())
		}
		return nil
	case <-time.After(4 * time.Minute):
		return errors.New("rbx serve: still running 4m after SIGTERM")
	}
}

// tail is the end of the server's stderr, for error messages.
func (p *serveProc) tail() string {
	data, _ := os.ReadFile(p.stderr)
	if len(data) > 2000 {
		data = data[len(data)-2000:]
	}
	return string(data)
}
