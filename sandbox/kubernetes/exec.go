package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// ioDrain bounds how long a cancelled exec's stream may take to close.
const ioDrain = time.Second

// killGrace is how long a killed process may take to exit.
const killGrace = 2 * time.Second

// proc is one exec in the sandbox's container, streaming until the process
// exits and its output is closed.
type proc struct {
	status <-chan execStatus
	cancel context.CancelFunc
}

// execStatus is how an exec ended: its exit code, or err when the stream
// itself failed (pod gone, API unreachable).
type execStatus struct {
	code int
	err  error
}

// exitStatus is what client-go's exec errors report (util/exec.ExitError).
type exitStatus interface{ ExitStatus() int }

// executor returns the exec executor for args in a container of pod:
// WebSocket (the API's current protocol), falling back to SPDY for API
// servers or proxies that refuse the WebSocket upgrade. With tty the
// process gets a terminal, which carries its stderr too.
func (r *Runtime) executor(pod, container string, args []string, stdin, tty bool) (remotecommand.Executor, error) {
	u := r.cs.CoreV1().RESTClient().Post().Namespace(r.namespace).Resource("pods").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: args, Stdin: stdin, Stdout: true, Stderr: !tty, TTY: tty},
			scheme.ParameterCodec).URL()
	ws, err := remotecommand.NewWebSocketExecutor(r.rest, "GET", u.String())
	if err != nil {
		return nil, fmt.Errorf("websocket executor: %w", err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(r.rest, "POST", (*url.URL)(u))
	if err != nil {
		return nil, fmt.Errorf("spdy executor: %w", err)
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

// run starts args in the sandbox with stdin (nil for none) and stdout and
// stderr both to out (nil discards; it must be safe for concurrent
// writes). The stream outlives ctx: the caller ends a process by killing
// it, then calls proc.stop.
func (s *Sandbox) run(ctx context.Context, args []string, stdin io.Reader, out io.Writer) (*proc, error) {
	return s.runErr(ctx, args, stdin, out, out)
}

// runErr is run with stderr apart.
func (s *Sandbox) runErr(ctx context.Context, args []string, stdin io.Reader, out, errOut io.Writer) (*proc, error) {
	return s.runIn(ctx, containerName, args, stdin, out, errOut)
}

// runIn is runErr in one of the pod's containers.
func (s *Sandbox) runIn(ctx context.Context, container string, args []string, stdin io.Reader, out, errOut io.Writer) (*proc, error) {
	ex, err := s.rt.executor(s.id, container, args, stdin != nil, false)
	if err != nil {
		return nil, fmt.Errorf("exec %q: %w", args[0], err)
	}
	if out == nil {
		out = io.Discard
	}
	if errOut == nil {
		errOut = io.Discard
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ch := make(chan execStatus, 1)
	go func() {
		err := ex.StreamWithContext(sctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: out, Stderr: errOut})
		var es exitStatus
		switch {
		case err == nil:
			ch <- execStatus{}
		case errors.As(err, &es):
			ch <- execStatus{code: es.ExitStatus()}
		default:
			ch <- execStatus{code: -1, err: fmt.Errorf("exec %q: %w", args[0], err)}
		}
	}()
	return &proc{status: ch, cancel: cancel}, nil
}

// stop closes the exec's stream, waiting briefly for it to end.
func (pr *proc) stop() {
	pr.cancel()
	select {
	case <-pr.status:
	case <-time.After(ioDrain):
	}
}

// runShort runs one of rbx's own helper scripts with the pod's static
// busybox (never the image's tools) to completion and returns its combined
// output and exit code.
func (s *Sandbox) runShort(ctx context.Context, script string, stdin io.Reader, out io.Writer) ([]byte, int, error) {
	var buf session.LockedBuffer
	if out == nil {
		out = &buf
	}
	pr, err := s.run(ctx, []string{busybox, "sh", "-c", "PATH=" + toolsBin + "; export PATH; " + script}, stdin, out)
	if err != nil {
		return nil, 0, err
	}
	defer pr.cancel()
	select {
	case st := <-pr.status:
		return buf.Bytes(), st.code, st.err
	case <-ctx.Done():
		pr.stop()
		return buf.Bytes(), 0, fmt.Errorf("exec helper: %w", ctx.Err())
	}
}
