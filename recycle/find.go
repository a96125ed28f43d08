package recycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AgentEnv names the variable FindAgent reads first.
const AgentEnv = "RBX_AGENT"

// AgentName is the agent binary's name beside the rbx binary (make build
// puts bin/rbx-agent next to bin/rbx).
const AgentName = "rbx-agent"

// ErrNoAgent: no agent binary was found.
var ErrNoAgent = errors.New("no rbx-agent binary")

// FindAgent returns the path of the agent binary: $RBX_AGENT when set,
// else rbx-agent next to the running executable.
func FindAgent() (string, error) {
	if p := os.Getenv(AgentEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: $%s: %v", ErrNoAgent, AgentEnv, err)
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoAgent, err)
	}
	p := filepath.Join(filepath.Dir(exe), AgentName)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: set $%s or build it beside %s (make build): %v", ErrNoAgent, AgentEnv, exe, err)
	}
	return p, nil
}

// AgentImageRepo is the repository of the agent images: an image holding
// only /rbx-agent, which the Kubernetes backend's init container copies
// into each recyclable pod (a pod can only get a binary from an image).
const AgentImageRepo = "rbx/agent"

// AgentImageRef is the name of the agent image holding the binary data:
// AgentImageRepo tagged with its SHA-256 prefix, so that a host and the
// pods it recycles run the same agent, whatever else the cluster holds.
func AgentImageRef(data []byte) string {
	sum := sha256.Sum256(data)
	return AgentImageRepo + ":" + hex.EncodeToString(sum[:6])
}
