package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
)

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"sub-second period", []string{"-period", "500ms"}},
		{"empty secret", []string{"-secret", ""}},
		{"unknown flag", []string{"-nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Error(t, run(context.Background(), tt.args, &bytes.Buffer{}))
		})
	}
	assert.ErrorIs(t, run(context.Background(), []string{"-period", "1500ms"}, &bytes.Buffer{}), otp.ErrConfig)
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var log bytes.Buffer
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, &log) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
