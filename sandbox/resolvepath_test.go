package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestResolvePath(t *testing.T) {
	tests := []struct {
		name, workdir, p, want string
	}{
		{name: "empty is the workdir", workdir: "/work", p: "", want: "/work"},
		{name: "relative joins the workdir", workdir: "/work", p: "a/b.txt", want: "/work/a/b.txt"},
		{name: "relative is cleaned", workdir: "/work/", p: "./a/../b", want: "/work/b"},
		{name: "relative may leave the workdir", workdir: "/work", p: "../etc/x", want: "/etc/x"},
		{name: "absolute keeps its place", workdir: "/work", p: "/tmp/x", want: "/tmp/x"},
		{name: "absolute is cleaned", workdir: "/work", p: "/tmp//y/../x/", want: "/tmp/x"},
		{name: "root", workdir: "/work", p: "/", want: "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sandbox.ResolvePath(tt.workdir, tt.p))
		})
	}
}
