package rock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// SandboxLease is the Lease of a plain sandbox: no episode behind it.
// Close removes the sandbox, then calls Release (which gives back the
// server's slot).
type SandboxLease struct {
	SB      sandbox.Sandbox
	Meta    map[string]string
	Release func()
}

var _ Lease = (*SandboxLease)(nil)

// Sandbox returns the sandbox.
func (l *SandboxLease) Sandbox() sandbox.Sandbox { return l.SB }

// Metadata returns Meta.
func (l *SandboxLease) Metadata() map[string]string { return l.Meta }

// Prefix is nil: a plain sandbox replayed nothing.
func (l *SandboxLease) Prefix() []byte { return nil }

// KeepAlive does nothing: only the API's timeout applies.
func (l *SandboxLease) KeepAlive() {}

// Gone is nil: nothing but Close ends a plain sandbox.
func (l *SandboxLease) Gone() error { return nil }

// Close removes the sandbox (even when ctx is cancelled) and releases it.
func (l *SandboxLease) Close(ctx context.Context, _ CloseMode) (map[string]string, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	err := l.SB.Remove(rctx)
	if l.Release != nil {
		l.Release()
	}
	if err != nil && !errors.Is(err, sandbox.ErrNotFound) {
		return nil, fmt.Errorf("remove sandbox %s: %w", l.SB.ID(), err)
	}
	return nil, nil
}
