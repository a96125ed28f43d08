package intervene_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/intervene"
)

func TestForkPoint(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		want   int
	}{
		{"drop: fork before the action that lowered it", []float64{0, 0.3, 0.3, 0.3, 0, 0}, 3},
		{"first of several drops", []float64{0.5, 0.2, 0.6, 0.1}, 0},
		{"plateau: where the maximum was first reached", []float64{0, 0.3, 0.6, 0.6, 0.6}, 2},
		{"flat: from the start", []float64{0, 0, 0, 0}, 0},
		{"rising to the end", []float64{0, 0.5, 0.7}, 2},
		{"no actions", []float64{0.4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, intervene.ForkPoint(tt.scores))
		})
	}
}
