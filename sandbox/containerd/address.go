package containerd

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Sockets tried, in order, when no address is given.
const (
	// StandardAddress is where a stand-alone containerd listens.
	StandardAddress = "/run/containerd/containerd.sock"
	// DockerAddress is where the containerd that Docker Engine starts
	// itself listens.
	DockerAddress = "/var/run/docker/containerd/containerd.sock"
)

// probeTimeout bounds the dial and version call of each candidate socket.
const probeTimeout = 3 * time.Second

// Candidates returns the sockets tried, in order: addr alone when given,
// else $CONTAINERD_ADDRESS alone when set (as ctr reads it), else the
// standard socket and Docker Engine's.
func Candidates(addr string) []string {
	if addr != "" {
		return []string{addr}
	}
	if env := os.Getenv("CONTAINERD_ADDRESS"); env != "" {
		return []string{env}
	}
	return []string{StandardAddress, DockerAddress}
}

// connect returns a client on the first candidate socket that answers a
// version call; the error names every socket tried and wraps
// sandbox.ErrUnavailable.
func connect(ctx context.Context, addr, namespace string) (*client.Client, string, error) {
	var why []string
	for _, a := range Candidates(addr) {
		cli, err := dial(ctx, a, namespace)
		if err == nil {
			return cli, a, nil
		}
		why = append(why, a+": "+err.Error())
	}
	return nil, "", fmt.Errorf("%w: no containerd answers (%s); pass --containerd-address", sandbox.ErrUnavailable, strings.Join(why, "; "))
}

func dial(ctx context.Context, addr, namespace string) (*client.Client, error) {
	path := strings.TrimPrefix(addr, "unix://")
	if _, err := os.Stat(path); err != nil {
		return nil, errors.Unwrap(err) // "no such file or directory"
	}
	cli, err := client.New(path, client.WithDefaultNamespace(namespace), client.WithTimeout(probeTimeout))
	if err != nil {
		return nil, err
	}
	vctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, err := cli.Version(vctx); err != nil {
		cli.Close()
		return nil, err
	}
	return cli, nil
}

// Available reports whether a containerd answers at one of
// Candidates(addr), with an error wrapping sandbox.ErrUnavailable when
// none does.
func Available(ctx context.Context, addr string) error {
	cli, _, err := connect(ctx, addr, DefaultNamespace)
	if err != nil {
		return fmt.Errorf("containerd: %w", err)
	}
	return cli.Close()
}

// findInit returns the host's static tini (Docker's docker-init is one),
// which is bind-mounted into each sandbox as its PID 1. A dynamically
// linked one would not run on the image's libraries, so it is not used.
func findInit() string {
	for _, name := range []string{"docker-init", "tini-static", "tini"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err == nil && static(real) {
			return real
		}
	}
	return ""
}

// static reports whether the ELF file at p has no program interpreter.
func static(p string) bool {
	f, err := elf.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}
