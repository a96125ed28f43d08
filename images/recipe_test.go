package images

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"rbx/busybox", "rbx/busybox:latest", true},
		{"rbx/busybox:latest", "rbx/busybox:latest", true},
		{" rbx/busybox ", "rbx/busybox:latest", true},
		{"rbx/debian:bookworm", "rbx/debian:bookworm", true},
		{"rbx/debian", "", false}, // means :latest, which no recipe builds
		{"rbx/busybox:1.0", "", false},
		{"localhost:5000/rbx/busybox", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, ok := Lookup(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, r.Name)
		})
	}
}

func TestNormalize(t *testing.T) {
	assert.Equal(t, "localhost:5000/x:latest", normalize("localhost:5000/x"))
	assert.Equal(t, "localhost:5000/x:v1", normalize("localhost:5000/x:v1"))
}

func TestRecipesAreComplete(t *testing.T) {
	rs := Recipes()
	assert.Len(t, rs, 4)
	for i, r := range rs {
		assert.NotEmpty(t, r.Description, r.Name)
		assert.Positive(t, r.Version, r.Name)
		if r.Base == "" {
			assert.NotNil(t, r.source, r.Name)
			assert.Contains(t, r.Changes, "ENV PATH="+defaultPath, r.Name)
		} else {
			assert.NotEmpty(t, r.context, r.Name)
		}
		if i > 0 {
			assert.Less(t, rs[i-1].Name, r.Name, "sorted")
		}
	}
}
