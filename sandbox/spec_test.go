package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestSpecDefaults(t *testing.T) {
	s := sandbox.Spec{}.WithDefaults()
	assert.EqualValues(t, 10<<30, s.Limits.DiskBytes)
	assert.EqualValues(t, 4<<30, s.Limits.FileSizeBytes)
	assert.EqualValues(t, 4096, s.Limits.NoFile)
	assert.Empty(t, s.User, "the image's user")
	assert.False(t, s.ReadOnlyRoot)

	set := sandbox.Spec{Limits: sandbox.Limits{DiskBytes: 1, FileSizeBytes: 2, NoFile: 3}}.WithDefaults()
	assert.Equal(t, []int64{1, 2, 3}, []int64{set.Limits.DiskBytes, set.Limits.FileSizeBytes, set.Limits.NoFile})
}

func TestSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec sandbox.Spec
		err  string // "" means valid
	}{
		{"defaults", sandbox.Spec{}, ""},
		{"uid", sandbox.Spec{User: "1000"}, ""},
		{"uid:gid", sandbox.Spec{User: "1000:1000"}, ""},
		{"name:group", sandbox.Spec{User: "agent:staff"}, ""},
		{"empty group", sandbox.Spec{User: "agent:"}, `user "agent:"`},
		{"space", sandbox.Spec{User: "a b"}, `user "a b"`},
		{"three parts", sandbox.Spec{User: "1:2:3"}, `user "1:2:3"`},
		{"leading dash", sandbox.Spec{User: "-u"}, `user "-u"`},
		{"nofile too high", sandbox.Spec{Limits: sandbox.Limits{NoFile: 1<<20 + 1}}, "nofile 1048577"},
		{"read-only root in /", sandbox.Spec{ReadOnlyRoot: true, Workdir: "/"}, `workdir "/"`},
		{"read-only root in /tmp", sandbox.Spec{ReadOnlyRoot: true, Workdir: "/tmp"}, `workdir "/tmp"`},
		{"read-only root", sandbox.Spec{ReadOnlyRoot: true, Workdir: "/app"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.WithDefaults().Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestNormalUser(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "1000": "1000:1000", "0": "0:0", "1000:5": "1000:5", "agent": "agent", "agent:staff": "agent:staff", "1a": "1a",
	} {
		assert.Equal(t, want, sandbox.NormalUser(in), in)
	}
}
