package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var (
	errEngineNotFound = errors.New("no such container")
	errEngineDown     = errors.New("connection refused")
)

func isEngineNotFound(err error) bool { return errors.Is(err, errEngineNotFound) }
func isEngineDown(err error) bool     { return errors.Is(err, errEngineDown) }

func TestEngineErr(t *testing.T) {
	gone := &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseRemoved}
	other := errors.New("bad request")
	unavailable := fmt.Errorf("%w: %w", sandbox.ErrUnavailable, errEngineDown)
	tests := []struct {
		name    string
		err     error
		wantIs  []error
		wantMsg string
	}{
		{name: "nil"},
		{name: "not found", err: errEngineNotFound, wantIs: []error{sandbox.ErrNotFound, errEngineNotFound}, wantMsg: "not found: no such container"},
		{name: "engine down", err: errEngineDown, wantIs: []error{sandbox.ErrUnavailable, errEngineDown}, wantMsg: "runtime unavailable: connection refused"},
		{name: "other kept", err: other, wantIs: []error{other}, wantMsg: "bad request"},
		{name: "gone kept", err: gone, wantIs: []error{sandbox.ErrSandboxGone}, wantMsg: gone.Error()},
		{name: "translated once", err: unavailable, wantIs: []error{sandbox.ErrUnavailable}, wantMsg: "runtime unavailable: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sandbox.EngineErr(tt.err, isEngineNotFound, isEngineDown)
			if tt.err == nil {
				assert.NoError(t, got)
				return
			}
			assert.EqualError(t, got, tt.wantMsg)
			for _, target := range tt.wantIs {
				assert.ErrorIs(t, got, target)
			}
		})
	}
}

func TestSettledGone(t *testing.T) {
	gone := &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseKilled}
	tests := []struct {
		name      string
		tries     int
		goneAt    int // the check call that first reports the sandbox gone; 0: never
		wantErr   error
		wantCalls int
	}{
		{name: "runs", tries: 4, wantCalls: 4},
		{name: "gone at once", tries: 4, goneAt: 1, wantErr: gone, wantCalls: 1},
		{name: "gone after a moment", tries: 4, goneAt: 3, wantErr: gone, wantCalls: 3},
		{name: "one try", tries: 1, goneAt: 2, wantCalls: 1},
		{name: "no tries", tries: 0, goneAt: 1, wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			check := func(context.Context) error {
				calls++
				if tt.goneAt > 0 && calls >= tt.goneAt {
					return gone
				}
				return nil
			}
			err := sandbox.SettledGone(context.Background(), tt.tries, check)
			assert.Equal(t, tt.wantErr, err)
			assert.Equal(t, tt.wantCalls, calls)
		})
	}
}
