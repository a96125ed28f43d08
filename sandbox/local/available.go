package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Available reports whether this host can run local sandboxes: /bin/sh must
// exist (bash is used where present) and /proc must be readable, since
// timed-out steps are found through /proc/*/environ. The error wraps
// sandbox.ErrUnavailable.
func Available(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("local runtime: %w", err)
	}
	// The session shell starts as /bin/sh (see session.StartCommand) and
	// execs bash from there when it can.
	if _, err := exec.LookPath("/bin/sh"); err != nil {
		return fmt.Errorf("local runtime: %w: no /bin/sh: %w", sandbox.ErrUnavailable, err)
	}
	if _, err := os.ReadFile("/proc/self/environ"); err != nil {
		return fmt.Errorf("local runtime: %w: /proc not readable: %w", sandbox.ErrUnavailable, err)
	}
	return nil
}
