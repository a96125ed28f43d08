package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
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
