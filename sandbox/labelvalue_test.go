package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestValidLabelValue(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"deploy-otp", true},
		{"a.b_c-9", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"/workspace", false},
		{"host/1/2", false},
		{"-lead", false},
		{"trail.", false},
		{"with space", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.ok, sandbox.ValidLabelValue(tc.in))
		})
	}
}

func TestValidLabelKey(t *testing.T) {
	for k, ok := range map[string]bool{
		"rbx.task": true, "example.com/role": true, "": false, "a/": false,
		"/a": false, "Upper.COM/x": false, "rbx.annotation/workdir": true,
	} {
		assert.Equal(t, ok, sandbox.ValidLabelKey(k), k)
	}
}

func TestLabelValue(t *testing.T) {
	long := strings.Repeat("t", 128)
	tests := []string{"short-id", "/workspace/a b", long, long + "x", "---", "ends-"}
	seen := map[string]string{}
	for _, in := range tests {
		got := sandbox.LabelValue(in)
		assert.True(t, sandbox.ValidLabelValue(got), "%q → %q", in, got)
		assert.Equal(t, got, sandbox.LabelValue(in), "deterministic")
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both map to %q", prev, in, got)
		}
		seen[got] = in
	}
	assert.Equal(t, "short-id", sandbox.LabelValue("short-id"), "a legal value is kept")
}

func TestSpecValidateLabels(t *testing.T) {
	base := sandbox.Spec{}.WithDefaults()
	tests := []struct {
		name string
		spec func(s sandbox.Spec) sandbox.Spec
		ok   bool
	}{
		{"legal", func(s sandbox.Spec) sandbox.Spec {
			s.Labels = map[string]string{sandbox.LabelTask: "t1"}
			s.Annotations = map[string]string{"rbx.workdir": "/a/b c"}
			return s
		}, true},
		{"slash in label value", func(s sandbox.Spec) sandbox.Spec {
			s.Labels = map[string]string{"rbx.workdir": "/a"}
			return s
		}, false},
		{"bad annotation key", func(s sandbox.Spec) sandbox.Spec {
			s.Annotations = map[string]string{"a b": "x"}
			return s
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec(base).Validate()
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, sandbox.ErrInvalidSpec)
		})
	}
}

func TestOwnerIsALabelValue(t *testing.T) {
	assert.True(t, sandbox.ValidLabelValue(sandbox.Owner), sandbox.Owner)
	labels := sandbox.ManagedLabels(map[string]string{sandbox.LabelTask: "x"})
	for k, v := range labels {
		assert.True(t, sandbox.ValidLabelKey(k), k)
		assert.True(t, sandbox.ValidLabelValue(v), "%s=%q", k, v)
	}
}

func TestDetect(t *testing.T) {
	down := errors.New("down")
	unavailable := func(context.Context) error { return down }
	available := func(context.Context) error { return nil }
	newRT := func(name string) func() (sandbox.Runtime, error) {
		return func() (sandbox.Runtime, error) { return namedRuntime{name: name}, nil }
	}
	t.Run("first available wins, skipped reported", func(t *testing.T) {
		rt, skipped, err := sandbox.Detect(context.Background(),
			sandbox.Backend{Name: "a", Available: unavailable, New: newRT("a")},
			sandbox.Backend{Name: "b", Available: available, New: newRT("b")},
			sandbox.Backend{Name: "c", Available: available, New: newRT("c")})
		require.NoError(t, err)
		assert.Equal(t, "b", rt.Name())
		require.Len(t, skipped, 1)
		assert.Equal(t, "a", skipped[0].Name)
		assert.ErrorIs(t, skipped[0].Err, down)
	})
	t.Run("none available", func(t *testing.T) {
		_, _, err := sandbox.Detect(context.Background(), sandbox.Backend{Name: "a", Available: unavailable, New: newRT("a")})
		assert.ErrorIs(t, err, sandbox.ErrUnavailable)
		assert.ErrorIs(t, err, down)
		var nr *sandbox.NoRuntimeError
		require.ErrorAs(t, err, &nr)
		assert.Equal(t, "no isolating sandbox runtime answered (a: down)", err.Error())
	})
	t.Run("a configured backend that does not answer stops the search", func(t *testing.T) {
		configured := func() bool { return true }
		rt, skipped, err := sandbox.Detect(context.Background(),
			sandbox.Backend{Name: "a", Available: unavailable, New: newRT("a"), Configured: configured},
			sandbox.Backend{Name: "b", Available: available, New: newRT("b")})
		assert.Nil(t, rt)
		assert.ErrorIs(t, err, sandbox.ErrUnavailable)
		require.Len(t, skipped, 1)
		rt, _, err = sandbox.Detect(context.Background(),
			sandbox.Backend{Name: "a", Available: unavailable, New: newRT("a"), Configured: func() bool { return false }},
			sandbox.Backend{Name: "b", Available: available, New: newRT("b")})
		require.NoError(t, err)
		assert.Equal(t, "b", rt.Name())
	})
	t.Run("never an unisolated backend", func(t *testing.T) {
		rt, skipped, err := sandbox.Detect(context.Background(),
			sandbox.Backend{Name: "a", Available: unavailable, New: newRT("a")},
			sandbox.Backend{Name: "host", Unisolated: true, Available: available, New: newRT("host")})
		assert.Nil(t, rt)
		assert.ErrorIs(t, err, sandbox.ErrUnavailable)
		require.Len(t, skipped, 1)
		assert.Equal(t, "a", skipped[0].Name)
		rt, err = sandbox.Open(context.Background(), "host",
			sandbox.Backend{Name: "host", Unisolated: true, Available: available, New: newRT("host")})
		require.NoError(t, err)
		assert.Equal(t, "host", rt.Name())
	})
	t.Run("open by name", func(t *testing.T) {
		bs := []sandbox.Backend{{Name: "a", Available: unavailable, New: newRT("a")}, {Name: "b", Available: available, New: newRT("b")}}
		rt, err := sandbox.Open(context.Background(), "b", bs...)
		require.NoError(t, err)
		assert.Equal(t, "b", rt.Name())
		_, err = sandbox.Open(context.Background(), "a", bs...)
		assert.ErrorIs(t, err, down)
		_, err = sandbox.Open(context.Background(), "zz", bs...)
		assert.ErrorIs(t, err, sandbox.ErrUnknownBackend)
	})
}

// namedRuntime is a Runtime that only has a name.
type namedRuntime struct {
	sandbox.Runtime
	name string
}

func (r namedRuntime) Name() string { return r.name }
