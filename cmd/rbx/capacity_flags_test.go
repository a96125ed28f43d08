package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestCapacityFlags(t *testing.T) {
	tests := []struct {
		name    string
		flags   capacityFlags
		max     int // 0: derived from memory
		ops     int
		invalid string
	}{
		{"defaults", capacityFlags{wait: 1, warm: -1}, 0, capacity.DefaultEngineOps(), ""},
		{"budget and engine operations", capacityFlags{max: 12, wait: 1, ops: 8, warm: -1}, 12, 8, ""},
		{"negative budget", capacityFlags{max: -1, wait: 1, warm: -1}, 0, 0, "--max-sandboxes"},
		{"no wait", capacityFlags{wait: 0, warm: -1}, 0, 0, "--capacity-wait"},
		{"negative engine operations", capacityFlags{wait: 1, ops: -2, warm: -1}, 0, 0, "--engine-ops"},
		{"bad recycle", capacityFlags{wait: 1, warm: -1, recycle: "sometimes"}, 0, 0, "--recycle"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.flags.budget(io.Discard, "serve", nil)
			if tc.invalid != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.invalid)
				return
			}
			require.NoError(t, err)
			if tc.max > 0 {
				assert.Equal(t, tc.max, b.Max())
			} else {
				assert.Positive(t, b.Max())
			}
			assert.Equal(t, tc.ops, b.EngineOps())
		})
	}
}

// namedRuntime is a runtime of a given name and features (recycling's
// decision reads nothing else).
type namedRuntime struct {
	sandbox.Runtime
	name  string
	feats sandbox.Features
}

func (r namedRuntime) Name() string               { return r.name }
func (r namedRuntime) Features() sandbox.Features { return r.feats }

// TestRecyclingDecision: --recycle auto recycles where the runtime can
// prove a sandbox fresh, but not on Kubernetes, whose nodes must hold the
// agent image (said, with the image and the way to turn it on); --recycle
// on turns it on there; off is off; no agent is off.
func TestRecyclingDecision(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "rbx-agent")
	require.NoError(t, os.WriteFile(agent, []byte("agent"), 0o755))
	can := sandbox.Features{Recycle: true}
	for _, tc := range []struct {
		name, mode, runtime, agent string
		feats                      sandbox.Features
		want                       bool
		says                       string
	}{
		{"docker, auto", "auto", "docker", agent, can, true, "recycling sandboxes in place"},
		{"kubernetes, auto", "auto", "kubernetes", agent, can, false, "--recycle on turns recycling on"},
		{"kubernetes, on", "on", "kubernetes", agent, can, true, "recycling sandboxes in place"},
		{"off", "off", "docker", agent, can, false, "--recycle off"},
		{"no agent", "auto", "docker", "", can, false, ""},
		{"a runtime that cannot prove it", "auto", "local", agent, sandbox.Features{}, false, "cannot prove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			c := capacityFlags{recycle: tc.mode}
			got := c.recycling(&out, namedRuntime{name: tc.runtime, feats: tc.feats}, tc.agent)
			assert.Equal(t, tc.want, got)
			assert.Contains(t, out.String(), tc.says)
			if tc.runtime == "kubernetes" && !tc.want {
				assert.Contains(t, out.String(), recycle.AgentImageRef([]byte("agent")), "names the image the nodes need")
			}
		})
	}
}
