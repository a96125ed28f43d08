package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// Timings of the wait for a new pod (waitRunning).
const (
	// probeEvery is the pause between two readiness probes: a cold start
	// takes a few hundred ms after scheduling, a failed probe ~10 ms.
	probeEvery = 100 * time.Millisecond
	// readyProbeTimeout bounds one probe (a loaded API server or kubelet).
	readyProbeTimeout = 10 * time.Second
)

// answerGrace is how long a pod whose status says its sandbox container
// runs may take to answer a probe before Create fails with the probe's
// error: an exec that never works would otherwise wait out the start
// timeout. A variable for tests.
var answerGrace = 30 * time.Second

// errNotReady: the sandbox container answered, the tools are not in place
// yet.
var errNotReady = errors.New("tools not in place yet")

// waitRunning waits until pod name's sandbox container answers an exec
// with the tools in place, failing fast on what its status shows cannot be
// recovered from (a *StartError).
//
// Two waits race. The kubelet publishes a container's start only at its
// next status relist, up to a second after it, but serves an exec as soon
// as the container runs (it looks the container up in the runtime, and
// the API server asks only that the pod has a node), and records a Started
// event at once: so once that event is seen readyProbe runs every
// probeEvery (not before: startedevent.go says why). The status watch still
// reports every failure as before, and is what sees the pod scheduled.
func (r *Runtime) waitRunning(ctx context.Context, name string) error {
	return r.waitStarted(ctx, name, r.readyProbe)
}

// probeFunc tells whether a scheduled pod is ready (nil).
type probeFunc func(ctx context.Context, p *corev1.Pod) error

// waitStarted is waitRunning with probe as the readiness probe.
func (r *Runtime) waitStarted(ctx context.Context, name string, probe probeFunc) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.startTimeout)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: neither wait outlives the call
	defer cancel()
	scheduled := make(chan *corev1.Pod, 1)
	var once, startOnce sync.Once
	started := make(chan struct{}) // closed when the sandbox container is known to run
	markStarted := func() { startOnce.Do(func() { close(started) }) }
	status, ready := make(chan error, 1), make(chan error, 1)
	wg.Go(func() {
		status <- r.watchStatus(ctx, name, func(p *corev1.Pod) { once.Do(func() { scheduled <- p }) })
	})
	wg.Go(func() { r.watchStartedEvent(ctx, name, markStarted) })
	wg.Go(func() { ready <- probeUntil(ctx, scheduled, started, probe) })
	start := time.Now()
	select {
	case err := <-ready:
		if err != nil { // ctx ended: the status wait says why
			return <-status
		}
		r.cfg.log.Debug("pod answered", "pod", name, "after", time.Since(start), "by", "exec")
		return nil
	case err := <-status:
		if err != nil {
			return err
		}
	}
	// The status says the sandbox container runs; the tools come at once
	// (the sidecar started in the same kubelet sync).
	markStarted()
	t := time.NewTimer(answerGrace)
	defer t.Stop()
	select {
	case err := <-ready:
		if err == nil {
			r.cfg.log.Debug("pod answered", "pod", name, "after", time.Since(start), "by", "status")
			return nil
		}
		return fmt.Errorf("pod %s runs but does not answer: %w", name, err)
	case <-t.C:
		cancel()
		return fmt.Errorf("pod %s runs but did not answer within %v: %w", name, answerGrace, <-ready)
	}
}

// probeUntil runs probe on the pod scheduled sends, once started is
// closed (never into a container not started yet: see startedevent.go),
// every probeEvery, until it succeeds (nil) or ctx ends (ctx's error with
// the last probe's).
func probeUntil(ctx context.Context, scheduled <-chan *corev1.Pod, started <-chan struct{}, probe probeFunc) error {
	var p *corev1.Pod
	select {
	case p = <-scheduled:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-started:
	case <-ctx.Done():
		return ctx.Err()
	}
	var last error
	for {
		err := probe(ctx, p)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil { // a probe cut short says nothing
			last = err
		}
		select {
		case <-ctx.Done():
			if last == nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w (last probe: %w)", ctx.Err(), last)
		case <-time.After(probeEvery):
		}
	}
}

// readyProbe execs the pod's busybox in p's sandbox container, which
// waits a while (readyScript) for toolsReady: nil once the container runs and
// the tools are in place. It runs no program of the image. Waiting in the
// container rather than probing again saves an exec round trip when the
// sidecar's copy is not done yet. It first makes the workdir (p's
// annotation), as the container's main process does, as the same user:
// the probe can answer before that process got to it, and the session
// shell starts in the workdir.
func (r *Runtime) readyProbe(ctx context.Context, p *corev1.Pod) error {
	ctx, cancel := context.WithTimeout(ctx, readyProbeTimeout)
	defer cancel()
	script := readyScript
	if wd := p.Annotations[sandbox.AnnotationWorkdir]; wd != "" {
		script = busybox + " mkdir -p -- " + session.Quote(wd) + " 2>/dev/null; " + script
	}
	ex, err := r.executor(p.Name, containerName, []string{busybox, "sh", "-c", script}, false, false)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard, Stderr: io.Discard})
	var es exitStatus
	if errors.As(err, &es) {
		return fmt.Errorf("probe: %w (exit %d)", errNotReady, es.ExitStatus())
	}
	if err != nil {
		return fmt.Errorf("probe: %w", apiErr(err))
	}
	return nil
}

// readyScript waits for toolsReady, polling every 10 ms 200 times (2 s
// and more), with busybox by its path: PATH is the image's.
var readyScript = "i=0; until " + busybox + " test -e " + toolsReady + "; do [ $i -lt 200 ] || exit 1; i=$((i+1)); " +
	busybox + " usleep 10000; done"
