package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
)

// isolationOption has /healthz say what isolation the sandboxes get and
// the operator's task policy, and says the first at start-up.
func isolationOption(ctx context.Context, errOut io.Writer, rt sandbox.Runtime, f runtimeFlags) server.Option {
	var iso any = map[string]string{"runtime": rt.Name(), "report": "none: this backend does not report its isolation"}
	if ir, ok := rt.(sandbox.IsolationReporter); ok {
		if r, err := ir.Isolation(ctx); err == nil {
			iso = r
			fmt.Fprintf(errOut, "rbx serve: isolation: %s\n", r)
		}
	}
	pol, _ := f.admission.policy() // parsed and validated when the tasks were admitted
	return server.WithIsolation(iso, pol)
}
