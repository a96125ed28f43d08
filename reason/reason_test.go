package reason_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/reason"
)

type carrier struct{ r reason.Reason }

func (c carrier) Error() string      { return string(c.r) }
func (c carrier) Why() reason.Reason { return c.r }

func TestIsInfra(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"no reason", errors.New("engine gone"), true},
		{"infra", carrier{reason.Infra}, true},
		{"session lost, wrapped", fmt.Errorf("step: %w", carrier{reason.SessionLost}), false},
		{"exit code", carrier{reason.ExitCode}, false},
		{"action", fmt.Errorf("x: %w", carrier{reason.Action}), false},
		{"timeout", carrier{reason.Timeout}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, reason.IsInfra(tc.err))
		})
	}
}

func TestIsDivergence(t *testing.T) {
	assert.True(t, reason.ExitCode.IsDivergence())
	assert.True(t, reason.Output.IsDivergence())
	assert.False(t, reason.Action.IsDivergence())
	assert.False(t, reason.Timeout.IsDivergence())
}
