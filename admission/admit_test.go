package admission_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/admission"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// loadTask writes a task file with body's extra fields and loads it.
func loadTask(t *testing.T, body string) *task.Task {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "task.yaml")
	require.NoError(t, os.WriteFile(path, []byte("id: t\ninstruction: do it\n"+body+"verify:\n  command: \"true\"\n"), 0o644))
	tk, err := task.Load(path)
	require.NoError(t, err)
	return tk
}

func TestAdmit(t *testing.T) {
	hostile := "image: rbx/busybox:latest\ncap_add: [SYS_ADMIN, SYS_PTRACE, NET_ADMIN, SYS_MODULE]\nnetwork: bridge\n"
	for _, tc := range []struct {
		name   string
		body   string
		policy admission.Policy
		pull   sandbox.PullPolicy
		want   []string // each refusal's text, in order; none: admitted
	}{
		{"a plain task", "image: rbx/busybox:latest\n", admission.Default(), sandbox.PullMissing, nil},
		{"safe and default caps", "image: rbx/busybox:latest\ncap_add: [DAC_OVERRIDE, CHOWN, NET_BIND_SERVICE]\n", admission.Default(), sandbox.PullMissing, nil},
		{"the hostile task", hostile, admission.Default(), sandbox.PullMissing, []string{
			`task.yaml:4:11: cap_add[0]: "SYS_ADMIN": the operator does not allow this capability (--allow-cap SYS_ADMIN allows it`,
			`cap_add[1]: "SYS_PTRACE"`, `cap_add[2]: "NET_ADMIN"`, `cap_add[3]: "SYS_MODULE"`,
			`network: "bridge": the operator does not allow a network (--allow-network allows it)`}},
		{"the hostile task, allowed", hostile, admission.Default().Merge(admission.Policy{Caps: []string{"SYS_ADMIN", "SYS_PTRACE", "NET_ADMIN", "SYS_MODULE"}, Network: true}), sandbox.PullMissing, nil},
		{"a pulled image", "image: ghcr.io/acme/env:1\n", admission.Default(), sandbox.PullMissing, []string{`image: "ghcr.io/acme/env:1": pulled from ghcr.io, which the operator does not allow (--allow-registry ghcr.io allows it`}},
		{"a pulled image, docker.io implied", "image: python:3.11\n", admission.Default(), sandbox.PullAlways, []string{`pulled from docker.io`}},
		{"a pulled image, allowed", "image: ghcr.io/acme/env:1\n", admission.Policy{Registries: []string{"ghcr.io"}}, sandbox.PullMissing, nil},
		{"no pull, no registry needed", "image: python:3.11\n", admission.Default(), sandbox.PullNever, nil},
		{"present here, not pulled", "image: myenv:1\n", admission.Default(), sandbox.PullMissing, nil},
		{"present here, pulled anyway under always", "image: myenv:1\n", admission.Default(), sandbox.PullAlways, []string{`pulled from docker.io`}},
		{"absent here", "image: python:3.11\n", admission.Default(), sandbox.PullMissing, []string{`pulled from docker.io`}},
		{"root denied", "image: rbx/busybox:latest\n", admission.Policy{DenyRoot: true}, sandbox.PullNever, []string{`user: "": the operator denies root`}},
		{"root denied, uid 0", "image: rbx/busybox:latest\nuser: \"0:0\"\n", admission.Policy{DenyRoot: true}, sandbox.PullNever, []string{`user: "0:0"`}},
		{"root denied, a user", "image: rbx/busybox:latest\nuser: \"1000\"\n", admission.Policy{DenyRoot: true}, sandbox.PullNever, nil},
		{"writable root denied", "image: rbx/busybox:latest\n", admission.Policy{DenyWritableRoot: true}, sandbox.PullNever, []string{`read_only_root: the operator requires a read-only root`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local := func(ref string) (bool, error) { return ref == "myenv:1", nil }
			err := tc.policy.Admit(loadTask(t, tc.body), tc.pull, local)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			var pe *task.ParseError
			require.True(t, errors.As(err, &pe), "refusals are located: %v", err)
			assert.NotZero(t, pe.Line)
		})
	}
}

func TestLoadPolicy(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(good, []byte("allow_caps: [cap_sys_ptrace]\nallow_network: true\nallow_registries: [ghcr.io]\ndeny_root: true\n"), 0o644))
	p, err := admission.Load(good)
	require.NoError(t, err)
	assert.Equal(t, admission.Policy{Caps: []string{"SYS_PTRACE"}, Network: true, Registries: []string{"ghcr.io"}, DenyRoot: true}, p)
	for name, body := range map[string]string{
		"unknown field": "allow_everything: true\n",
		"bad registry":  "allow_registries: [ghcr.io/acme]\n",
		"ALL":           "allow_caps: [ALL]\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.yaml")
			require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			_, err := admission.Load(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "bad.yaml")
		})
	}
}
