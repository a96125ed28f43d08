// Command rbx-agent is rbx's trusted in-sandbox agent (see recycle/agent).
// Build it static: CGO_ENABLED=0 go build ./cmd/rbx-agent.
package main

import (
	"os"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

func main() {
	os.Exit(agent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
