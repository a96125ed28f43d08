package testenv_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
)

// fakeTB records what Missing asks of it instead of stopping the goroutine.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skip(args ...any)                  { f.skipped = args[0].(string) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = format }

func TestMissingSkipsOrFails(t *testing.T) {
	tests := []struct {
		name  string
		value *string // nil: unset
		fail  bool
	}{
		{name: "unset", fail: false},
		{name: "empty", value: ptr(""), fail: false},
		{name: "0", value: ptr("0"), fail: false},
		{name: "false", value: ptr("false"), fail: false},
		{name: "1", value: ptr("1"), fail: true},
		{name: "true", value: ptr("true"), fail: true},
		{name: "typo fails rather than switching off", value: ptr("yes"), fail: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(testenv.RequireDockerEnv, "")
			if tc.value == nil {
				require.NoError(t, os.Unsetenv(testenv.RequireDockerEnv))
			} else {
				t.Setenv(testenv.RequireDockerEnv, *tc.value)
			}
			f := &fakeTB{}
			testenv.Missing(f, "no Docker engine answers: %s", "dial unix: no such file")
			if tc.fail {
				assert.Empty(t, f.skipped)
				assert.NotEmpty(t, f.failed)
				return
			}
			assert.Empty(t, f.failed)
			assert.Equal(t, "no Docker engine answers: dial unix: no such file", f.skipped)
		})
	}
}

func ptr(s string) *string { return &s }
