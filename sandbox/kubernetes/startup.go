package kubernetes

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// start waits until the new pod runs with its tools in place, then readies
// it as spec asks: a recyclable pod's fresh listing, a session pod's shell.
//
// A plain session pod's first session shell is its readiness probe: its
// supervisor checks the tools first (firstCheck), so that one exec, not a
// probe's and then the shell's, follows the container's start. The other
// pods are probed with readyProbe (exec mode has no shell to open; a
// recyclable pod's listing comes before its shell).
func (s *Sandbox) start(ctx context.Context, spec sandbox.Spec) error {
	if spec.Mode == sandbox.ModeSession && !spec.Recycle {
		return s.startSession(ctx)
	}
	if err := s.rt.waitRunning(ctx, s.id); err != nil {
		return err
	}
	if spec.Recycle {
		if err := s.prepareRecycle(ctx, spec.Image); err != nil {
			return err
		}
	}
	if spec.Mode == sandbox.ModeSession {
		sess, err := s.openSession(ctx)
		if err != nil {
			return s.gone(ctx, err)
		}
		s.keeper.Install(sess)
	}
	return nil
}

// startSession waits for a plain session pod by opening its first session
// shell until one opens, and installs it.
func (s *Sandbox) startSession(ctx context.Context) error {
	var conn session.Conn
	err := s.rt.waitStarted(ctx, s.id, func(ctx context.Context, _ *corev1.Pod) error {
		ctx, cancel := context.WithTimeout(ctx, readyProbeTimeout) // the handshake's; the stream outlives it
		defer cancel()
		c, err := session.OpenPipe(ctx, s.starter(s.firstSupervisor()), session.Sh(s.sh).KillStep, session.WithOutputCap(s.outputCap))
		if err != nil {
			return err
		}
		conn = c
		return nil
	})
	if err != nil { // the status decided first; a shell that opened meanwhile goes
		if conn != nil {
			conn.Close()
		}
		return err
	}
	s.keeper.Install(conn)
	return nil
}

// firstCheck is what the first session shell's supervisor runs before the
// usual prefix: it waits for the tools sidecar's toolsReady as readyScript
// does (polling in the container costs less than another exec), fails
// (125, and the shell is opened again) when it does not come, then makes
// the workdir as the container's main process does (the shell may start
// before that process got to it). The check, the pause and the mkdir run
// the pod's busybox, by its path: the image's shell only runs it, as it
// runs every step.
func (s *Sandbox) firstCheck() string {
	return "i=0; until " + busybox + " test -e " + toolsReady + " 2>/dev/null; do [ $i -lt 200 ] || exit 125; i=$((i+1)); " +
		busybox + " usleep 10000 2>/dev/null; done; " + busybox + " mkdir -p -- " + session.Quote(s.workdir) + " 2>/dev/null; "
}
