package session_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// The supervisor scripts, spelled out: the backends' supervisors must not
// change by being built from one function.
func TestSupervisorScripts(t *testing.T) {
	const shell = "b=/bin/sh; command -v bash >/dev/null 2>&1 && b='bash --noprofile --norc'; " +
		"(exec $s $b >&3 2>&3 3>&-); { " + session.ExitScript + "; } >&3"
	const setsid = "; s=; command -v setsid >/dev/null 2>&1 && s=setsid; exec 3>&1 "
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "plain", got: session.Supervisor(""), want: session.ReadExitMarker + setsid + ">/dev/null 2>&1; " + shell},
		{name: "then", got: session.Supervisor("sleep 1"), want: session.ReadExitMarker + setsid + ">/dev/null 2>&1; " + shell + "; sleep 1"},
		{name: "keeping stderr", got: session.SupervisorKeepingStderr("cd /w || exit 126; "), want: "cd /w || exit 126; " + session.ReadExitMarker + setsid + ">/dev/null; " + shell},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
}
