package kubernetes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationStartFailures: a pod that cannot start fails Create with a
// typed error as soon as its status shows why, not after the start
// timeout, and leaves no pod behind.
func TestIntegrationStartFailures(t *testing.T) {
	tests := []struct {
		name string
		opts []kubernetes.Option
		spec sandbox.Spec
		is   []error
	}{
		{"image missing", nil, sandbox.Spec{Image: "rbx/no-such-image:1"}, []error{sandbox.ErrImageMissing}},
		{"unschedulable", []kubernetes.Option{kubernetes.WithRequests(kubernetes.Requests{CPUMillis: 1_000_000})},
			sandbox.Spec{Image: busyboxImage, Limits: sandbox.Limits{CPUs: 1000}}, []error{kubernetes.ErrUnschedulable}},
		// The cluster's pause image has no /bin/sh: the container cannot run.
		{"container cannot start", nil, sandbox.Spec{Image: "rbx.local/pause:1"}, []error{sandbox.ErrSandboxGone}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := k8stest.Runtime(t, append(tc.opts, kubernetes.WithStartTimeout(90*time.Second))...)
			tc.spec.Labels = map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}
			start := time.Now()
			sb, err := rt.Create(context.Background(), tc.spec)
			if sb != nil {
				_ = sb.Remove(context.Background())
			}
			assertFailedFast(t, err, start, tc.is...)
			assert.NotErrorIs(t, err, kubernetes.ErrStartTimeout)
			left, lerr := rt.List(context.Background(), tc.spec.Labels)
			require.NoError(t, lerr)
			assert.Empty(t, left, "the failed pod is deleted")
		})
	}
}

// assertFailedFast checks a Create that cannot start: a *StartError
// wrapping every target, well before the start timeout.
func assertFailedFast(t *testing.T, err error, start time.Time, targets ...error) {
	t.Helper()
	require.Error(t, err)
	assert.Less(t, time.Since(start), 60*time.Second, "failed fast, not at the start timeout")
	var se *kubernetes.StartError
	assert.True(t, errors.As(err, &se), "a *StartError: %v", err)
	for _, target := range targets {
		assert.ErrorIs(t, err, target)
	}
}
