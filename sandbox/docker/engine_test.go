package docker_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// sockProxy forwards a unix socket to the engine's; stop closes the listener
// and every connection, as an engine restart would.
type sockProxy struct {
	path, target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
}

func (p *sockProxy) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("unix", p.path)
	require.NoError(t, err)
	p.mu.Lock()
	p.ln, p.conns = ln, map[net.Conn]struct{}{}
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *sockProxy) forward(c net.Conn) {
	up, err := net.DialTimeout("unix", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, up) {
		return
	}
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// track registers a connection pair, or closes it when the proxy stopped.
func (p *sockProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		if p.ln == nil {
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
	}
	return p.ln != nil
}

func (p *sockProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return
	}
	p.ln.Close()
	p.ln = nil
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestIntegrationEngineGoneAndBack: while the engine's socket is down,
// operations fail quickly with ErrUnavailable (or a GoneError with cause
// engine_unavailable for a session it broke); once it is back, the same
// Runtime creates and runs again.
func TestIntegrationEngineGoneAndBack(t *testing.T) {
	direct := newRuntime(t)
	target := strings.TrimPrefix(direct.Client().DaemonHost(), "unix://")
	if strings.Contains(target, "://") {
		t.Skipf("engine at %s is not a unix socket", target)
	}
	dir, err := os.MkdirTemp("", "rbx-proxy")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &sockProxy{path: filepath.Join(dir, "engine.sock"), target: target}
	p.start(t)
	t.Cleanup(p.stop)
	cli, err := client.NewClientWithOpts(client.WithHost("unix://"+p.path), client.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	rt, err := docker.New(docker.WithClient(cli))
	require.NoError(t, err)

	// Cleanup goes straight to the engine: the proxy may be down by then.
	create := func(ctx context.Context, mode sandbox.Mode) (sandbox.Sandbox, error) {
		sb, err := rt.Create(ctx, sandbox.Spec{Image: testImage, Mode: mode, Labels: map[string]string{"rbx.test": t.Name()}})
		t.Cleanup(func() {
			if sb != nil {
				_ = direct.Remove(context.Background(), sb.ID())
			}
		})
		return sb, err
	}
	bounded := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 20*time.Second)
	}
	ctx, cancel := bounded()
	defer cancel()
	sess, err := create(ctx, sandbox.ModeSession)
	require.NoError(t, err)
	fresh, err := create(ctx, sandbox.ModeExec)
	require.NoError(t, err)
	for _, sb := range []sandbox.Sandbox{sess, fresh} {
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo up"})
		require.NoError(t, err)
		require.Equal(t, "up\n", string(res.Output))
	}

	errc := make(chan error, 1)
	go func() {
		_, err := sess.Exec(ctx, sandbox.ExecRequest{Command: "sleep 30"})
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	p.stop()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, sandbox.ErrUnavailable)
		var ge *sandbox.GoneError
		require.ErrorAs(t, err, &ge, "the session was lost: %v", err)
		assert.Equal(t, sandbox.CauseEngineUnavailable, ge.Cause)
	case <-time.After(10 * time.Second):
		t.Fatal("a step in flight did not return when the engine went away")
	}

	down := []struct {
		name string
		op   func(ctx context.Context) error
	}{
		{"create", func(ctx context.Context) error { _, err := create(ctx, sandbox.ModeExec); return err }},
		{"exec", func(ctx context.Context) error {
			_, err := fresh.Exec(ctx, sandbox.ExecRequest{Command: "true"})
			return err
		}},
		{"session exec", func(ctx context.Context) error {
			_, err := sess.Exec(ctx, sandbox.ExecRequest{Command: "true"})
			return err
		}},
		{"write", func(ctx context.Context) error { return fresh.WriteFile(ctx, "f", []byte("x"), 0) }},
		{"list", func(ctx context.Context) error { _, err := rt.List(ctx, nil); return err }},
	}
	for _, op := range down {
		start := time.Now()
		ctx, cancel := bounded()
		err := op.op(ctx)
		cancel()
		t.Logf("%s while down: %v", op.name, err)
		assert.ErrorIs(t, err, sandbox.ErrUnavailable, "%s while the engine is down", op.name)
		assert.Less(t, time.Since(start), 5*time.Second, "%s failed fast", op.name)
	}

	p.start(t)
	ctx2, cancel2 := bounded()
	defer cancel2()
	again, err := create(ctx2, sandbox.ModeSession)
	require.NoError(t, err, "create after the engine came back")
	// The old session's state is gone, and said so until it is reopened.
	_, err = sess.Exec(ctx2, sandbox.ExecRequest{Command: "echo back"})
	var lost *sandbox.SessionLostError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, sandbox.SessionEngineLost, lost.Cause)
	require.NoError(t, sess.(sandbox.SessionReopener).Reopen(ctx2))
	for _, sb := range []sandbox.Sandbox{again, fresh, sess} {
		res, err := sb.Exec(ctx2, sandbox.ExecRequest{Command: "echo back"})
		require.NoError(t, err, "exec in %s after the engine came back", sb.ID())
		assert.Equal(t, "back\n", string(res.Output))
		assert.False(t, res.SessionLost)
	}
}
